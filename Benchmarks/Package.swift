// swift-tools-version:6.1
// The benchmarks: this project's store against raw SQLite and GRDB, in one run; its PostgreSQL engine against raw
// postgres-nio on a real server. A separate package, so that the library's users never build GRDB.
//
//   swift run -c release --package-path Benchmarks store-bench
//   swift run -c release --package-path Benchmarks store-bench-postgres --url postgres://user@host:port/db
import Foundation
import PackageDescription

// A path dependency is named after its folder: find the name of the folder that holds this one.
let parentFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "ObservableStoreBenchmarks",
    platforms: [.macOS(.v15)],  // as the store itself
    dependencies: [
        // The root package with its PostgreSQL engine (store-bench builds the same SQLite modules either way).
        .package(path: "..", traits: [.defaults, "PostgreSQL"]),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // The system libsqlite3, for the "raw" contender (the C API used directly).
        .systemLibrary(name: "CSQLiteRaw", providers: [.apt(["libsqlite3-dev"])]),
        // What both benchmark tools use: clocks, percentiles, a latency collector.
        .target(name: "BenchSupport"),
        .executableTarget(
            name: "store-bench",
            dependencies: [
                "BenchSupport",
                "CSQLiteRaw",
                .product(name: "ObservableStore", package: parentFolder),
                .product(name: "StoreRecord", package: parentFolder),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // PostgresStore against raw postgres-nio on a real server:
        //   swift run -c release --package-path Benchmarks store-bench-postgres --url postgres://user@host:port/db
        .executableTarget(
            name: "store-bench-postgres",
            dependencies: [
                "BenchSupport",
                .product(name: "ObservableStorePostgres", package: parentFolder),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
