# The rp2 port's _boot.py (ports/rp2/modules/_boot.py), but the filesystem
# is the storage after the game log's area (turtleboard_log.py).
import turtleboard_log
import vfs

# Try to mount the filesystem, and format the flash if it doesn't exist.
# Note: the flash requires the programming size to be aligned to 256 bytes.
bdev = turtleboard_log.filesystem()
try:
    fs = vfs.VfsLfs2(bdev, progsize=256)
except Exception:
    vfs.VfsLfs2.mkfs(bdev, progsize=256)
    fs = vfs.VfsLfs2(bdev, progsize=256)
vfs.mount(fs, "/")

del vfs, bdev, fs, turtleboard_log
