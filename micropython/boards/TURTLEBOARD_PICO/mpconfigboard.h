// The Turtleboard's Pico: a Raspberry Pi Pico (RP2040, 2 MB flash) with a
// ROMFS partition for the firmware's modules. The partition's and the
// filesystem's sizes are in mpconfigboard.cmake, which passes them to the C
// code and checks at link time that the code stays below the partition.
#define MICROPY_HW_BOARD_NAME                   "Raspberry Pi Pico (Turtleboard)"

// No __file__ on modules: the firmware never reads it, and each module's
// dict kept an entry for it (~0.3 KB of the heap over the firmware's modules).
#define MICROPY_MODULE___FILE__                 (0)
