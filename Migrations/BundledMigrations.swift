// The library's own migrations, compiled into the binary from the .sql files beside this file.
// Apply order = array order. Adding a file: list it here and in Package.swift's `resources`, then run
// `storectl migrate hash` (or the test that prints the expected line) to extend migrations.sum.

/// The library's bundled SQL migrations, as (file name without extension, SQL text) in apply order.
package enum BundledMigrations {
    /// Every bundled migration, oldest first.
    package static let all: [(id: String, sql: String)] = [
        ("0001_create_nodes", String(decoding: PackageResources._001_create_nodes_sql, as: UTF8.self)),
        ("0002_create_user_info", String(decoding: PackageResources._002_create_user_info_sql, as: UTF8.self)),
        ("0003_create_change_log", String(decoding: PackageResources._003_create_change_log_sql, as: UTF8.self)),
        ("0004_create_store_meta", String(decoding: PackageResources._004_create_store_meta_sql, as: UTF8.self)),
        (
            "0005_change_log_without_autoincrement",
            String(decoding: PackageResources._005_change_log_without_autoincrement_sql, as: UTF8.self)
        ),
        ("0006_change_log_external_marker", String(decoding: PackageResources._006_change_log_external_marker_sql, as: UTF8.self)),
        ("0007_change_log_pieces", String(decoding: PackageResources._007_change_log_pieces_sql, as: UTF8.self)),
    ]
}
