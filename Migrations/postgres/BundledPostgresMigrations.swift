// The PostgreSQL engine's own migrations, compiled into the binary from the .sql files beside this file.
// Apply order = array order. Adding a file: list it here and in Package.swift's `resources`, and extend
// migrations.sum (the test that checks it prints the expected line).

/// The PostgreSQL engine's bundled SQL migrations, as (file name without extension, SQL text) in apply order.
package enum BundledPostgresMigrations {
    /// Every bundled migration, oldest first.
    package static let all: [(id: String, sql: String)] = [
        ("0001_store", String(decoding: PackageResources._001_store_sql, as: UTF8.self)),
        ("0002_concurrent_commits", String(decoding: PackageResources._002_concurrent_commits_sql, as: UTF8.self)),
        ("0003_capture_any_column_name", String(decoding: PackageResources._003_capture_any_column_name_sql, as: UTF8.self)),
    ]
}
