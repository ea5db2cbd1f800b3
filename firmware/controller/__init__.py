# Device logic, hardware-agnostic: sensing, move matching, LED scenes,
# protocol endpoint, persistence, prompts. Hardware comes in through a HAL.
