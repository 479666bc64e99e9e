#ifndef OBSERVABLE_STORE_POWERLOSS_VFS_H
#define OBSERVABLE_STORE_POWERLOSS_VFS_H

// A SQLite VFS shim for crash tests that simulates power loss: writes to the main database,
// WAL and rollback journal are held in memory until the file is synced (xSync), so data that
// was never synced really is gone when the process is killed. See powerloss_vfs.c for the
// model and its limits.

#ifdef __cplusplus
extern "C" {
#endif

/// Registers the "powerloss" VFS, wrapping the default (unix) VFS, and makes it the default VFS
/// of the process. Returns SQLITE_OK or an SQLite error code. Safe to call more than once.
int powerloss_vfs_register(void);

#ifdef __cplusplus
}
#endif

#endif
