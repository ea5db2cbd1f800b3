# cmake file for the Turtleboard's Pico: MicroPython's RPI_PICO with a ROMFS
# partition for the firmware's modules, which then run from flash in place,
# and a raw area for the game log at the start of the storage, before the
# filesystem (turtleboard_log.py says its size; _boot.py mounts the rest).
# Built and tested on MicroPython v1.28.0.
set(PICO_BOARD "pico")
set(PICO_PLATFORM "rp2040")
set(MICROPY_FROZEN_MANIFEST ${MICROPY_BOARD_DIR}/manifest.py)

# The 2 MB of flash: MicroPython's code 640 KB (as on RPI_PICO), then the ROMFS
# partition 256 KB, then the filesystem 1152 KB (1408 KB on RPI_PICO, less the
# partition). The rp2 port reads both sizes only as C macros and places the
# partition just below the filesystem. `-DMICROPY_HW_ROMFS_BYTES=...` (and
# `-DMICROPY_HW_FLASH_STORAGE_BYTES=...`) on the cmake line override them;
# keep both multiples of 4096.
if(NOT DEFINED MICROPY_HW_ROMFS_BYTES)
    set(MICROPY_HW_ROMFS_BYTES 262144)  # 256 * 1024
endif()
if(NOT DEFINED MICROPY_HW_FLASH_STORAGE_BYTES)
    math(EXPR MICROPY_HW_FLASH_STORAGE_BYTES "1408 * 1024 - ${MICROPY_HW_ROMFS_BYTES}")
endif()
list(APPEND MICROPY_DEF_BOARD
    "MICROPY_HW_ROMFS_BYTES=${MICROPY_HW_ROMFS_BYTES}"
    "MICROPY_HW_FLASH_STORAGE_BYTES=${MICROPY_HW_FLASH_STORAGE_BYTES}"
)

# The build fails if MicroPython's code grows into the ROMFS partition (the
# port's linker script does not check it): the port's own linker script,
# plus an ASSERT on where the code ends, written into the build folder.
set(TURTLEBOARD_FLASH_BYTES 2097152)  # the Pico's 2 MB
math(EXPR TURTLEBOARD_ROMFS_BASE
    "${TURTLEBOARD_FLASH_BYTES} - ${MICROPY_HW_FLASH_STORAGE_BYTES} - ${MICROPY_HW_ROMFS_BYTES}")
if(TURTLEBOARD_ROMFS_BASE LESS 0)
    message(FATAL_ERROR "ROMFS ${MICROPY_HW_ROMFS_BYTES} + filesystem ${MICROPY_HW_FLASH_STORAGE_BYTES} bytes do not fit in the 2 MB flash")
endif()
set(MICROPY_BOARD_LINKER_SCRIPT ${CMAKE_BINARY_DIR}/turtleboard_memmap.ld)
file(WRITE ${MICROPY_BOARD_LINKER_SCRIPT}
"/* Written by the board's mpconfigboard.cmake: the rp2 port's linker script and a check. */
INCLUDE \"${MICROPY_PORT_DIR}/memmap_mp_rp2040.ld\"
ASSERT(__flash_binary_end <= 0x10000000 + ${TURTLEBOARD_ROMFS_BASE},
    \"MicroPython's code overlaps the ROMFS partition: make MICROPY_HW_ROMFS_BYTES or MICROPY_HW_FLASH_STORAGE_BYTES smaller\")
")
