// The Turtleboard's Pico: a Raspberry Pi Pico (RP2040, 2 MB flash) with a
// ROMFS partition for the firmware's modules, which then run from flash
// instead of the heap. The partition sits between MicroPython and the
// filesystem and is taken from the filesystem (1408 KB on RPI_PICO).
#define MICROPY_HW_BOARD_NAME                   "Raspberry Pi Pico (Turtleboard)"
#define MICROPY_HW_ROMFS_BYTES                  (256 * 1024)
#define MICROPY_HW_FLASH_STORAGE_BYTES          (1408 * 1024 - MICROPY_HW_ROMFS_BYTES)
