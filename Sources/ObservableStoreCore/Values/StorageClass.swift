/// SQLite's five storage classes, as reported for a value (`sqlite3_column_type`).
package enum StorageClass: Sendable {
    case null, integer, real, text, blob
}
