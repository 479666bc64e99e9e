// swift-tools-version:6.1
// The benchmarks: this project's store against raw SQLite and GRDB, in one run.
// A separate package, so that the library's users never build GRDB.
//
//   swift run -c release --package-path Benchmarks store-bench
import Foundation
import PackageDescription

// A path dependency is named after its folder: find the name of the folder that holds this one.
let parentFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "ObservableStoreBenchmarks",
    platforms: [.macOS(.v15)],  // as the store itself
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // The system libsqlite3, for the "raw" contender (the C API used directly).
        .systemLibrary(name: "CSQLiteRaw", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "store-bench",
            dependencies: [
                "CSQLiteRaw",
                .product(name: "ObservableStore", package: parentFolder),
                .product(name: "StoreRecord", package: parentFolder),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ]
)
