# Hardware backends behind one small interface (docs/firmware.md).
