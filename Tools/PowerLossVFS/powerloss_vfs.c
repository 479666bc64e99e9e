/*
** powerloss_vfs.c: a SQLite VFS shim that simulates power loss, for crash tests.
**
** A process killed with SIGKILL does not lose its writes: they are already in the OS page
** cache. This shim makes the writes that were never synced really disappear with the process:
** every write to a main database, WAL or rollback journal is held in memory, per path, until
** that file is synced (xSync); only then are the writes applied to the real file, in a random
** order, followed by the real sync. Killing the process therefore leaves on disk exactly what
** was synced, plus, when the kill lands in the middle of a flush, a random subset of the writes
** being flushed.
**
** What the model covers:
**   - loss of every write that was not followed by an xSync of its file;
**   - reordering of the writes made durable by one sync (any subset of them may survive).
** What it does not cover:
**   - directory entries: creating or deleting a file (xOpen, xDelete) is durable at once;
**   - torn writes: each xWrite reaches the file whole or not at all (a kill inside one pwrite
**     call can still tear it at page granularity, as the kernel copies it page by page);
**   - truncation: xTruncate first writes the file's pending writes to the real file (in a
**     random order) and then truncates it, so everything written before a truncation survives
**     a later kill, as if the truncation were a sync without the fsync;
**   - the shared-memory (-shm) file, which passes straight through: it is not durable anyway
**     and a crash test should delete it before reopening;
**   - several processes: pending writes live in this process only, so another process does
**     not see them (a real page cache is shared); use the shim in one process per database;
**   - memory-mapped I/O: xFetch never maps, so SQLite always reads through xRead;
**   - files other than the main database, WAL and main journal (temp files, super-journals),
**     which pass straight through.
**
** Pending writes are kept per path (the full pathname SQLite passes to xOpen), shared by every
** handle of this process that opened that path, because several connections in one process
** must see each other's writes as they would through the page cache. One mutex protects the
** whole table; it is held across the real reads and writes so that a read never sees a flush
** half done. Overlapping pending writes are kept consistent (see pending_add), so that they can
** be applied in any order.
*/
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strdup under a strict -std=c11 */
#endif

#include "powerloss_vfs.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The kinds of file whose writes are held until they are synced. */
#define PL_BUFFERED_FILES (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL)

/* One write not yet applied to the real file. */
typedef struct PendingWrite {
    sqlite3_int64 offset;
    int amount;
    unsigned char *bytes;
} PendingWrite;

/* The pending writes of one path, shared by every handle of this process on that path. */
typedef struct PathEntry {
    char *path;
    PendingWrite *writes;
    int count;
    int capacity;
    int handles;  /* open handles using this entry */
    int detached; /* 1 once the path was deleted: out of the table, freed with its last handle */
    struct PathEntry *next;
} PathEntry;

/* Our file object; the real VFS's file object follows it in the same allocation. */
typedef struct PowerLossFile {
    sqlite3_file base;
    sqlite3_file *real;
    PathEntry *entry; /* NULL for a file that passes straight through */
} PowerLossFile;

static pthread_mutex_t pl_mutex = PTHREAD_MUTEX_INITIALIZER; /* guards everything below */
static PathEntry *pl_paths;                                    /* entries not detached */
static uint64_t pl_random_state;
static pid_t pl_random_pid;

static sqlite3_vfs *pl_real_vfs; /* the wrapped VFS, set once by powerloss_vfs_register */
static sqlite3_vfs pl_vfs;
static sqlite3_io_methods pl_io_methods_v1; /* for real files without shared memory */
static const sqlite3_io_methods pl_io_methods;

/* ---------------------------------------------------------------- random order */

/* Returns the next number of a xorshift64* generator, seeded from the time and the pid (and
** seeded again in a forked child, so that parent and child do not share one sequence). */
static uint64_t random_next(void) {
    pid_t pid = getpid();
    if (pl_random_pid != pid) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        pl_random_state = ((uint64_t)now.tv_sec * 1000000007u) ^ (uint64_t)now.tv_nsec ^ ((uint64_t)pid << 32);
        pl_random_state |= 1;
        pl_random_pid = pid;
    }
    pl_random_state ^= pl_random_state >> 12;
    pl_random_state ^= pl_random_state << 25;
    pl_random_state ^= pl_random_state >> 27;
    return pl_random_state * 2685821657736338717ull;
}

/* Puts the writes in a random order (Fisher-Yates). */
static void shuffle(PendingWrite *writes, int count) {
    for (int i = count - 1; i > 0; i--) {
        int j = (int)(random_next() % (uint64_t)(i + 1));
        PendingWrite swap = writes[i];
        writes[i] = writes[j];
        writes[j] = swap;
    }
}

/* ---------------------------------------------------------------- pending writes */

/* Copies into dst (covering dstAmount bytes at dstOffset) the bytes of src (srcAmount bytes at
** srcOffset) that fall inside dst's range. */
static void copy_overlap(unsigned char *dst, sqlite3_int64 dstOffset, int dstAmount,
                         const unsigned char *src, sqlite3_int64 srcOffset, int srcAmount) {
    sqlite3_int64 start = dstOffset > srcOffset ? dstOffset : srcOffset;
    sqlite3_int64 dstEnd = dstOffset + dstAmount, srcEnd = srcOffset + srcAmount;
    sqlite3_int64 end = dstEnd < srcEnd ? dstEnd : srcEnd;
    if (start < end) memcpy(dst + (start - dstOffset), src + (start - srcOffset), (size_t)(end - start));
}

/* Records a write. Invariant: wherever two pending writes overlap they hold the same bytes (the
** latest ones), so they can be flushed in any order and a read may apply them in any order. So
** a new write is also copied into the overlapping part of every older one; an older write of
** exactly the same range is simply overwritten. */
static int pending_add(PathEntry *entry, const void *bytes, int amount, sqlite3_int64 offset) {
    int replaced = 0;
    for (int i = 0; i < entry->count; i++) {
        PendingWrite *w = &entry->writes[i];
        if (w->offset == offset && w->amount == amount) {
            memcpy(w->bytes, bytes, (size_t)amount);
            replaced = 1;
        } else {
            copy_overlap(w->bytes, w->offset, w->amount, bytes, offset, amount);
        }
    }
    if (replaced) return SQLITE_OK;
    if (entry->count == entry->capacity) {
        int capacity = entry->capacity ? entry->capacity * 2 : 16;
        PendingWrite *writes = realloc(entry->writes, (size_t)capacity * sizeof(PendingWrite));
        if (!writes) return SQLITE_IOERR_NOMEM;
        entry->writes = writes;
        entry->capacity = capacity;
    }
    unsigned char *copy = malloc(amount > 0 ? (size_t)amount : 1);
    if (!copy) return SQLITE_IOERR_NOMEM;
    memcpy(copy, bytes, (size_t)amount);
    entry->writes[entry->count++] = (PendingWrite){.offset = offset, .amount = amount, .bytes = copy};
    return SQLITE_OK;
}

/* Lays every pending write over the bytes just read from the real file. */
static void pending_apply(const PathEntry *entry, unsigned char *buffer, int amount, sqlite3_int64 offset) {
    for (int i = 0; i < entry->count; i++) {
        const PendingWrite *w = &entry->writes[i];
        copy_overlap(buffer, offset, amount, w->bytes, w->offset, w->amount);
    }
}

/* Returns the end of the furthest pending write (0 when there is none). */
static sqlite3_int64 pending_end(const PathEntry *entry) {
    sqlite3_int64 end = 0;
    for (int i = 0; i < entry->count; i++) {
        sqlite3_int64 e = entry->writes[i].offset + entry->writes[i].amount;
        if (e > end) end = e;
    }
    return end;
}

/* Drops every pending write. */
static void pending_clear(PathEntry *entry) {
    for (int i = 0; i < entry->count; i++) free(entry->writes[i].bytes);
    entry->count = 0;
}

/* Writes the pending writes to the real file in a random order and forgets them. A kill in the
** middle leaves a random subset applied, as intended. On an error the writes not yet applied
** stay pending. */
static int pending_flush(PathEntry *entry, sqlite3_file *real) {
    int done = 0, rc = SQLITE_OK;
    shuffle(entry->writes, entry->count);
    while (done < entry->count) {
        PendingWrite *w = &entry->writes[done];
        rc = real->pMethods->xWrite(real, w->bytes, w->amount, w->offset);
        if (rc != SQLITE_OK) break;
        free(w->bytes);
        done++;
    }
    if (done > 0 && done < entry->count) {
        memmove(entry->writes, entry->writes + done, (size_t)(entry->count - done) * sizeof(PendingWrite));
    }
    entry->count -= done;
    return rc;
}

/* ---------------------------------------------------------------- the path table */

/* Frees an entry that is no longer in the table. */
static void entry_free(PathEntry *entry) {
    pending_clear(entry);
    free(entry->writes);
    free(entry->path);
    free(entry);
}

/* Takes an entry out of the table. */
static void entry_unlink(PathEntry *entry) {
    for (PathEntry **link = &pl_paths; *link; link = &(*link)->next) {
        if (*link == entry) {
            *link = entry->next;
            return;
        }
    }
}

/* Returns the table's entry for a path, or NULL. */
static PathEntry *entry_find(const char *path) {
    for (PathEntry *entry = pl_paths; entry; entry = entry->next) {
        if (strcmp(entry->path, path) == 0) return entry;
    }
    return NULL;
}

/* Returns the entry of a path, created if needed, with one more handle counted; NULL if out of
** memory. */
static PathEntry *entry_acquire(const char *path) {
    PathEntry *entry = entry_find(path);
    if (!entry) {
        entry = calloc(1, sizeof(PathEntry));
        if (!entry) return NULL;
        entry->path = strdup(path);
        if (!entry->path) {
            free(entry);
            return NULL;
        }
        entry->next = pl_paths;
        pl_paths = entry;
    }
    entry->handles++;
    return entry;
}

/* Counts one handle less. An entry without handles is freed if it holds no pending write or
** if its path was deleted; otherwise it stays, so that the next open of the path sees them. */
static void entry_release(PathEntry *entry) {
    entry->handles--;
    if (entry->handles > 0) return;
    if (entry->detached) {
        entry_free(entry);
    } else if (entry->count == 0) {
        entry_unlink(entry);
        entry_free(entry);
    }
}

/* Forgets a deleted path: its pending writes go with it. Handles still open on the deleted
** file keep the entry (they may still read what they wrote) until the last one closes; a new
** file opened under the same path starts with no pending write. */
static void entry_detach(const char *path) {
    PathEntry *entry = entry_find(path);
    if (!entry) return;
    entry_unlink(entry);
    if (entry->handles == 0) {
        entry_free(entry);
    } else {
        entry->detached = 1;
    }
}

/* ---------------------------------------------------------------- io methods */

/* Returns the real file of one of our files. */
static sqlite3_file *real_file(sqlite3_file *file) {
    return ((PowerLossFile *)file)->real;
}

/* Closes the real file. Pending writes are not flushed: they stay in the table for the other
** handles of the path and for its next open, as unsynced data stays in a page cache. (SQLite
** syncs whatever it relies on before closing; with synchronous=OFF the writes of a path closed
** for good stay in memory until the process ends or the path is deleted.) */
static int pl_close(sqlite3_file *file) {
    PowerLossFile *p = (PowerLossFile *)file;
    int rc = p->real->pMethods->xClose(p->real);
    if (p->entry) {
        pthread_mutex_lock(&pl_mutex);
        entry_release(p->entry);
        pthread_mutex_unlock(&pl_mutex);
        p->entry = NULL;
    }
    return rc;
}

/* Reads a range of a buffered file as this process sees it: the real bytes with the pending
** writes laid over them. Past the logical size (the larger of the real size and the end of the
** pending writes) the bytes are zero and the result is SQLITE_IOERR_SHORT_READ. Caller holds
** the mutex. */
static int read_logical(PowerLossFile *p, unsigned char *buffer, int amount, sqlite3_int64 offset) {
    sqlite3_int64 realSize = 0;
    int rc = p->real->pMethods->xRead(p->real, buffer, amount, offset);
    if (rc == SQLITE_IOERR_SHORT_READ) {
        int sizeRc = p->real->pMethods->xFileSize(p->real, &realSize);
        if (sizeRc != SQLITE_OK) return sizeRc;
        sqlite3_int64 valid = realSize > offset ? realSize - offset : 0;
        if (valid < amount) memset(buffer + valid, 0, (size_t)(amount - valid));
    } else if (rc != SQLITE_OK) {
        return rc;
    }
    pending_apply(p->entry, buffer, amount, offset);
    if (rc == SQLITE_IOERR_SHORT_READ) {
        sqlite3_int64 end = pending_end(p->entry);
        sqlite3_int64 logicalSize = end > realSize ? end : realSize;
        if (offset + amount <= logicalSize) rc = SQLITE_OK;
    }
    return rc;
}

/* xRead: see read_logical. */
static int pl_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    PowerLossFile *p = (PowerLossFile *)file;
    if (!p->entry) return p->real->pMethods->xRead(p->real, buffer, amount, offset);
    pthread_mutex_lock(&pl_mutex);
    int rc = read_logical(p, buffer, amount, offset);
    pthread_mutex_unlock(&pl_mutex);
    return rc;
}

/* xWrite: a buffered file's write only joins the path's pending writes. */
static int pl_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    PowerLossFile *p = (PowerLossFile *)file;
    if (!p->entry) return p->real->pMethods->xWrite(p->real, buffer, amount, offset);
    pthread_mutex_lock(&pl_mutex);
    int rc = pending_add(p->entry, buffer, amount, offset);
    pthread_mutex_unlock(&pl_mutex);
    return rc;
}

/* xTruncate: flushes the pending writes (random order), then truncates the real file. The
** truncation is durable at once (a simplification, see the top of the file). */
static int pl_truncate(sqlite3_file *file, sqlite3_int64 size) {
    PowerLossFile *p = (PowerLossFile *)file;
    if (!p->entry) return p->real->pMethods->xTruncate(p->real, size);
    pthread_mutex_lock(&pl_mutex);
    int rc = pending_flush(p->entry, p->real);
    if (rc == SQLITE_OK) rc = p->real->pMethods->xTruncate(p->real, size);
    pthread_mutex_unlock(&pl_mutex);
    return rc;
}

/* xSync: applies the path's pending writes to the real file in a random order, then syncs it.
** The real sync runs outside the mutex: the data is already in the real file. */
static int pl_sync(sqlite3_file *file, int flags) {
    PowerLossFile *p = (PowerLossFile *)file;
    if (p->entry) {
        pthread_mutex_lock(&pl_mutex);
        int rc = pending_flush(p->entry, p->real);
        pthread_mutex_unlock(&pl_mutex);
        if (rc != SQLITE_OK) return rc;
    }
    return p->real->pMethods->xSync(p->real, flags);
}

/* xFileSize: the logical size, the larger of the real size and the end of the pending writes. */
static int pl_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    PowerLossFile *p = (PowerLossFile *)file;
    if (!p->entry) return p->real->pMethods->xFileSize(p->real, size);
    pthread_mutex_lock(&pl_mutex);
    int rc = p->real->pMethods->xFileSize(p->real, size);
    if (rc == SQLITE_OK) {
        sqlite3_int64 end = pending_end(p->entry);
        if (end > *size) *size = end;
    }
    pthread_mutex_unlock(&pl_mutex);
    return rc;
}

/* xLock: delegated. */
static int pl_lock(sqlite3_file *file, int level) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xLock(real, level);
}

/* xUnlock: delegated. */
static int pl_unlock(sqlite3_file *file, int level) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xUnlock(real, level);
}

/* xCheckReservedLock: delegated. */
static int pl_check_reserved_lock(sqlite3_file *file, int *reserved) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xCheckReservedLock(real, reserved);
}

/* xFileControl: delegated; SQLITE_FCNTL_VFSNAME answers "powerloss/<real name>". */
static int pl_file_control(sqlite3_file *file, int op, void *arg) {
    sqlite3_file *real = real_file(file);
    int rc = real->pMethods->xFileControl(real, op, arg);
    if (op == SQLITE_FCNTL_VFSNAME && rc == SQLITE_OK) {
        char **name = (char **)arg;
        *name = sqlite3_mprintf("powerloss/%z", *name);
    }
    return rc;
}

/* xSectorSize: delegated. */
static int pl_sector_size(sqlite3_file *file) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xSectorSize(real);
}

/* xDeviceCharacteristics: the real file's, less every promise about atomic, appending or
** ordered writes (the shim reorders writes and SQLite's batch-atomic file controls would go to
** the real file behind the pending writes' back). SQLITE_IOCAP_POWERSAFE_OVERWRITE is kept when
** the real file has it: a write here never changes bytes outside its own range. */
static int pl_device_characteristics(sqlite3_file *file) {
    PowerLossFile *p = (PowerLossFile *)file;
    int caps = p->real->pMethods->xDeviceCharacteristics(p->real);
    if (!p->entry) return caps;
    int dropped = SQLITE_IOCAP_ATOMIC | SQLITE_IOCAP_ATOMIC512 | SQLITE_IOCAP_ATOMIC1K | SQLITE_IOCAP_ATOMIC2K |
                  SQLITE_IOCAP_ATOMIC4K | SQLITE_IOCAP_ATOMIC8K | SQLITE_IOCAP_ATOMIC16K | SQLITE_IOCAP_ATOMIC32K |
                  SQLITE_IOCAP_ATOMIC64K | SQLITE_IOCAP_SAFE_APPEND | SQLITE_IOCAP_SEQUENTIAL |
                  SQLITE_IOCAP_BATCH_ATOMIC;
    return caps & ~dropped;
}

/* xShmMap: delegated (shared memory is not durable and passes straight through). */
static int pl_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **pp) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xShmMap(real, region, size, extend, pp);
}

/* xShmLock: delegated. */
static int pl_shm_lock(sqlite3_file *file, int offset, int n, int flags) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xShmLock(real, offset, n, flags);
}

/* xShmBarrier: delegated. */
static void pl_shm_barrier(sqlite3_file *file) {
    sqlite3_file *real = real_file(file);
    real->pMethods->xShmBarrier(real);
}

/* xShmUnmap: delegated. */
static int pl_shm_unmap(sqlite3_file *file, int deleteFlag) {
    sqlite3_file *real = real_file(file);
    return real->pMethods->xShmUnmap(real, deleteFlag);
}

/* xFetch: never maps a page, so SQLite reads everything through xRead (which sees the pending
** writes) and the real file is never memory-mapped. */
static int pl_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **pp) {
    (void)file, (void)offset, (void)amount;
    *pp = 0;
    return SQLITE_OK;
}

/* xUnfetch: nothing was ever mapped. */
static int pl_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *p) {
    (void)file, (void)offset, (void)p;
    return SQLITE_OK;
}

static const sqlite3_io_methods pl_io_methods = {
    3,
    pl_close,
    pl_read,
    pl_write,
    pl_truncate,
    pl_sync,
    pl_file_size,
    pl_lock,
    pl_unlock,
    pl_check_reserved_lock,
    pl_file_control,
    pl_sector_size,
    pl_device_characteristics,
    pl_shm_map,
    pl_shm_lock,
    pl_shm_barrier,
    pl_shm_unmap,
    pl_fetch,
    pl_unfetch,
};

/* ---------------------------------------------------------------- vfs methods */

/* xOpen: opens the real file inside ours; main databases, WALs and main journals with a name
** share their path's pending writes, every other file passes straight through. */
static int pl_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags) {
    PowerLossFile *p = (PowerLossFile *)file;
    (void)vfs;
    p->base.pMethods = NULL;
    p->entry = NULL;
    p->real = (sqlite3_file *)&p[1];
    int rc = pl_real_vfs->xOpen(pl_real_vfs, name, p->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        if (p->real->pMethods) p->real->pMethods->xClose(p->real);
        return rc;
    }
    if (name && (flags & PL_BUFFERED_FILES)) {
        pthread_mutex_lock(&pl_mutex);
        p->entry = entry_acquire(name);
        pthread_mutex_unlock(&pl_mutex);
        if (!p->entry) {
            p->real->pMethods->xClose(p->real);
            return SQLITE_NOMEM;
        }
    }
    p->base.pMethods = p->real->pMethods->iVersion >= 2 ? &pl_io_methods : &pl_io_methods_v1;
    return SQLITE_OK;
}

/* xDelete: drops the path's pending writes (see entry_detach), then deletes the real file. */
static int pl_delete(sqlite3_vfs *vfs, const char *path, int syncDir) {
    (void)vfs;
    pthread_mutex_lock(&pl_mutex);
    entry_detach(path);
    pthread_mutex_unlock(&pl_mutex);
    return pl_real_vfs->xDelete(pl_real_vfs, path, syncDir);
}

/* The other VFS methods are delegated to the real VFS as they are. */

static int pl_access(sqlite3_vfs *vfs, const char *path, int flags, int *result) {
    (void)vfs;
    return pl_real_vfs->xAccess(pl_real_vfs, path, flags, result);
}

static int pl_full_pathname(sqlite3_vfs *vfs, const char *path, int size, char *out) {
    (void)vfs;
    return pl_real_vfs->xFullPathname(pl_real_vfs, path, size, out);
}

static void *pl_dl_open(sqlite3_vfs *vfs, const char *path) {
    (void)vfs;
    return pl_real_vfs->xDlOpen(pl_real_vfs, path);
}

static void pl_dl_error(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    pl_real_vfs->xDlError(pl_real_vfs, size, message);
}

static void (*pl_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return pl_real_vfs->xDlSym(pl_real_vfs, handle, symbol);
}

static void pl_dl_close(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    pl_real_vfs->xDlClose(pl_real_vfs, handle);
}

static int pl_randomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return pl_real_vfs->xRandomness(pl_real_vfs, size, out);
}

static int pl_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return pl_real_vfs->xSleep(pl_real_vfs, microseconds);
}

static int pl_current_time(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    return pl_real_vfs->xCurrentTime(pl_real_vfs, now);
}

static int pl_get_last_error(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return pl_real_vfs->xGetLastError ? pl_real_vfs->xGetLastError(pl_real_vfs, size, message) : 0;
}

static int pl_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return pl_real_vfs->xCurrentTimeInt64(pl_real_vfs, now);
}

static int pl_set_system_call(sqlite3_vfs *vfs, const char *name, sqlite3_syscall_ptr call) {
    (void)vfs;
    return pl_real_vfs->xSetSystemCall(pl_real_vfs, name, call);
}

static sqlite3_syscall_ptr pl_get_system_call(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return pl_real_vfs->xGetSystemCall(pl_real_vfs, name);
}

static const char *pl_next_system_call(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return pl_real_vfs->xNextSystemCall(pl_real_vfs, name);
}

/* Fills pl_vfs in as a wrapper of the real VFS, offering the same version of the interface. */
static void build_vfs(sqlite3_vfs *real) {
    pl_vfs = (sqlite3_vfs){
        .iVersion = real->iVersion < 3 ? real->iVersion : 3,
        .szOsFile = (int)sizeof(PowerLossFile) + real->szOsFile,
        .mxPathname = real->mxPathname,
        .zName = "powerloss",
        .pAppData = real,
        .xOpen = pl_open,
        .xDelete = pl_delete,
        .xAccess = pl_access,
        .xFullPathname = pl_full_pathname,
        .xDlOpen = pl_dl_open,
        .xDlError = pl_dl_error,
        .xDlSym = pl_dl_sym,
        .xDlClose = pl_dl_close,
        .xRandomness = pl_randomness,
        .xSleep = pl_sleep,
        .xCurrentTime = pl_current_time,
        .xGetLastError = pl_get_last_error,
        .xCurrentTimeInt64 = pl_current_time_int64,
        .xSetSystemCall = pl_set_system_call,
        .xGetSystemCall = pl_get_system_call,
        .xNextSystemCall = pl_next_system_call,
    };
    pl_io_methods_v1 = pl_io_methods;
    pl_io_methods_v1.iVersion = 1;
}

/* Registers the "powerloss" VFS as the default one, wrapping the default VFS found the first
** time. Later calls register it again, which only makes it the default again. */
int powerloss_vfs_register(void) {
    static pthread_mutex_t registerMutex = PTHREAD_MUTEX_INITIALIZER;
    int rc = SQLITE_OK;
    pthread_mutex_lock(&registerMutex);
    if (!pl_real_vfs) {
        sqlite3_vfs *real = sqlite3_vfs_find(0);
        if (!real) {
            rc = SQLITE_ERROR;
        } else {
            build_vfs(real);
            pl_real_vfs = real;
        }
    }
    if (rc == SQLITE_OK) rc = sqlite3_vfs_register(&pl_vfs, 1);
    pthread_mutex_unlock(&registerMutex);
    return rc;
}
