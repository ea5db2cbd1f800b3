# cmake file for the Turtleboard's Pico: MicroPython's RPI_PICO with a ROMFS
# partition for the firmware's modules, which then run from flash in place.
set(PICO_BOARD "pico")
set(PICO_PLATFORM "rp2040")

# The 2 MB of flash: MicroPython 640 KB (as on RPI_PICO), then the ROMFS
# partition 256 KB, then the filesystem 1152 KB (1408 KB on RPI_PICO, less the
# partition). Since v1.29 the rp2 port takes both sizes as CMake variables
# (plain numbers: they also become linker symbols) and places the partition
# just below the filesystem. `-DMICROPY_HW_ROMFS_BYTES=...` on the command
# line overrides them; keep both multiples of 4096.
if(NOT DEFINED MICROPY_HW_ROMFS_BYTES)
    set(MICROPY_HW_ROMFS_BYTES 262144)  # 256 * 1024
endif()
if(NOT DEFINED MICROPY_HW_FLASH_STORAGE_BYTES)
    math(EXPR MICROPY_HW_FLASH_STORAGE_BYTES "1408 * 1024 - ${MICROPY_HW_ROMFS_BYTES}")
endif()
# Also as a definition for the C code, in case the port passes only the
# filesystem's size on (the same value twice is no redefinition).
list(APPEND MICROPY_DEF_BOARD "MICROPY_HW_ROMFS_BYTES=${MICROPY_HW_ROMFS_BYTES}")
