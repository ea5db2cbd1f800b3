// The Turtleboard's Pico: a Raspberry Pi Pico (RP2040, 2 MB flash) with a
// ROMFS partition for the firmware's modules. The partition's and the
// filesystem's sizes are in mpconfigboard.cmake (the rp2 port takes them
// from CMake since v1.29); defining them here too would redefine them.
#define MICROPY_HW_BOARD_NAME                   "Raspberry Pi Pico (Turtleboard)"
