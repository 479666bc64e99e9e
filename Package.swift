// swift-tools-version:6.1
import PackageDescription

let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")

let package = Package(
    name: "ObservableStore",
    products: [
        .library(name: "ObservableStore", targets: ["ObservableStore"]),
        .executable(name: "storectl", targets: ["storectl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // The system libsqlite3 (Debian: libsqlite3-dev). Only StoreSQLite imports it.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "StoreSQLite", dependencies: ["CSQLite"]),
        // The SQL files of Migrations/, compiled into the binary.
        .target(
            name: "StoreMigrations",
            path: "Migrations",
            exclude: ["migrations.sum", "schema.sql"],
            resources: [
                .embedInCode("0001_create_nodes.sql"),
                .embedInCode("0002_create_user_info.sql"),
                .embedInCode("0003_create_change_log.sql"),
                .embedInCode("0004_create_store_meta.sql"),
            ]
        ),
        .target(name: "ObservableStore", dependencies: ["StoreSQLite", "StoreMigrations", logging]),
        .executableTarget(
            name: "storectl",
            dependencies: ["ObservableStore", argumentParser],
            path: "Tools/storectl"
        ),
        // A small program the tests start as a separate process (migrations racing, crashes).
        .executableTarget(name: "store-fixture", dependencies: ["ObservableStore"], path: "Tools/store-fixture"),
        .target(name: "StoreTestSupport", dependencies: ["ObservableStore"], path: "Tests/StoreTestSupport"),
        .testTarget(name: "StoreSQLiteTests", dependencies: ["StoreSQLite", "StoreTestSupport"]),
        .testTarget(
            name: "ObservableStoreTests",
            dependencies: ["ObservableStore", "StoreSQLite", "StoreTestSupport", "store-fixture", "storectl"]
        ),
        .testTarget(name: "storectlTests", dependencies: ["ObservableStore", "StoreTestSupport", "storectl", "store-fixture"]),
    ]
)

for target in package.targets where [.regular, .executable, .test].contains(target.type) {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
        ]
}
