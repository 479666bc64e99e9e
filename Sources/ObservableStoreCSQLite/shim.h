#ifndef OBSERVABLE_STORE_CSQLITE_SHIM_H
#define OBSERVABLE_STORE_CSQLITE_SHIM_H

// Debian's <sqlite3.h> declares the preupdate API only when this macro is set.
// Whether the linked library really has it is checked at run time
// (sqlite3_compileoption_used("ENABLE_PREUPDATE_HOOK")) when a store opens.
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>

// sqlite3_db_config is variadic, which Swift cannot call: wrap the calls the store needs.

/// Turns off double-quoted string literals (https://www.sqlite.org/quirks.html#dblquote), so that
/// "name" is always an identifier and a misspelled column is an error, not a string.
static inline int observable_store_disable_double_quoted_strings(sqlite3 *db) {
    int code = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
    if (code == SQLITE_OK) code = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)0);
    return code;
}

#endif
