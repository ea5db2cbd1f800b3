# cmake file for the Turtleboard's Raspberry Pi Pico (RPI_PICO with a ROMFS partition)
set(PICO_BOARD "pico")
set(PICO_PLATFORM "rp2040")
