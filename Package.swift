// swift-tools-version:6.2
import CompilerPluginSupport
import PackageDescription

// storectl's command-line parser, behind the default trait "storectl": a service that depends on the library
// with `traits: []` resolves and builds swift-log only (see the README).
let argumentParser = Target.Dependency.product(
    name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["storectl"]))
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
// The @Record macro's compiler plug-in (product StoreRecord), behind the default trait "StoreRecord": only
// StoreRecordMacros and its tests use swift-syntax, but SwiftPM resolves a package any target names, so a service
// that depends on the library with `traits: []` would otherwise still resolve swift-syntax (Tests/ClientPackage/check).
func swiftSyntax(_ product: String) -> Target.Dependency {
    .product(name: product, package: "swift-syntax", condition: .when(traits: ["StoreRecord"]))
}
// The PostgreSQL engine's client, behind the trait "PostgreSQL" (off by default): SQLite-only services neither
// resolve nor build postgres-nio and SwiftNIO. Only StorePostgres imports it.
let postgresNIO: [Target.Dependency] = [
    .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
    .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
    .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
    // TLS to the server (sslmode=require, verify-full); postgres-nio builds it anyway.
    .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["PostgreSQL"])),
]

let package = Package(
    name: "ObservableStore",
    // Linux is what CI builds and tests. On Apple platforms, the writer's atomics (Synchronization) need macOS 15.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ObservableStore", targets: ["ObservableStore"]),
        .executable(name: "storectl", targets: ["storectl"]),
        // The optional @Record macro: fast records without hand-written row coding (builds swift-syntax).
        .library(name: "StoreRecord", targets: ["StoreRecord"]),
        // The same store on PostgreSQL (trait "PostgreSQL"; docs/POSTGRES.md).
        .library(name: "ObservableStorePostgres", targets: ["ObservableStorePostgres"]),
    ],
    traits: [
        .trait(name: "storectl", description: "Builds storectl and its tools (needs swift-argument-parser)."),
        .trait(name: "StoreRecord", description: "Builds the @Record macro of product StoreRecord (needs swift-syntax)."),
        .trait(name: "PostgreSQL", description: "Builds the PostgreSQL engine, ObservableStorePostgres, and storectl --db postgres:// (needs postgres-nio)."),
        .default(enabledTraits: ["storectl", "StoreRecord"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
        // `swift package generate-documentation` (README, Development). No target uses it, so SwiftPM does not
        // resolve it for a package that depends on this one (Tests/ClientPackage/check fails if it does).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The system libsqlite3 (Debian: libsqlite3-dev). Only StoreSQLite imports it.
        // Named after the package, not `CSQLite`: target names are unique across a package graph, and a
        // service may well have a `CSQLite` of its own (GRDB's is `GRDBSQLite` for the same reason).
        .systemLibrary(name: "ObservableStoreCSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // The backend-neutral core: values, records and their coders, queries, events, listener delivery,
        // bind-and-fire, durable listeners, and the engine protocol an engine implements (docs/ARCHITECTURE.md).
        .target(name: "ObservableStoreCore", dependencies: [logging]),
        // The SQLite C API, wrapped; it uses the core's values only.
        .target(name: "StoreSQLite", dependencies: ["ObservableStoreCore", "ObservableStoreCSQLite"]),
        // The SQL files of Migrations/, compiled into the binary.
        .target(
            name: "StoreMigrations",
            path: "Migrations",
            exclude: ["migrations.sum", "schema.sql", "postgres"],
            resources: [
                .embedInCode("0001_create_nodes.sql"),
                .embedInCode("0002_create_user_info.sql"),
                .embedInCode("0003_create_change_log.sql"),
                .embedInCode("0004_create_store_meta.sql"),
                .embedInCode("0005_change_log_without_autoincrement.sql"),
                .embedInCode("0006_change_log_external_marker.sql"),
                .embedInCode("0007_change_log_pieces.sql"),
            ]
        ),
        // The SQLite engine, re-exporting the core: what users import.
        .target(name: "ObservableStore", dependencies: ["ObservableStoreCore", "StoreSQLite", "StoreMigrations", logging]),
        // The PostgreSQL engine (trait "PostgreSQL"): StorePostgres is its client layer, the only importer of
        // postgres-nio (as StoreSQLite is of the C API); StorePostgresMigrations its SQL files (Migrations/postgres);
        // ObservableStorePostgres the engine, on the same core. Without the trait their sources compile to nothing.
        .target(name: "StorePostgres", dependencies: ["ObservableStoreCore", logging] + postgresNIO),
        .target(
            name: "StorePostgresMigrations",
            path: "Migrations/postgres",
            exclude: ["migrations.sum"],
            resources: [
                .embedInCode("0001_store.sql"),
                .embedInCode("0002_concurrent_commits.sql"),
                .embedInCode("0003_capture_any_column_name.sql"),
            ]
        ),
        .target(name: "ObservableStorePostgres", dependencies: ["ObservableStoreCore", "StorePostgres", "StorePostgresMigrations", logging]),
        // @Record and @Column: the macros' implementation (a compiler plug-in) and the library declaring them.
        .macro(name: "StoreRecordMacros", dependencies: [swiftSyntax("SwiftSyntaxMacros"), swiftSyntax("SwiftCompilerPlugin")]),
        .target(name: "StoreRecord", dependencies: ["ObservableStoreCore", "StoreRecordMacros"]),
        // storectl's commands and input parsers; the executable is one line, so the fuzz harness can link them.
        // With the trait PostgreSQL, storectl also runs on `--db postgres://…` (docs/POSTGRES.md, "storectl on PostgreSQL").
        .target(
            name: "StoreCtlCore",
            dependencies: [
                "ObservableStore", argumentParser,
                .target(name: "ObservableStorePostgres", condition: .when(traits: ["PostgreSQL"])),
            ],
            path: "Tools/StoreCtlCore"),
        .executableTarget(name: "storectl", dependencies: ["StoreCtlCore"], path: "Tools/storectl"),
        // libFuzzer harnesses of storectl's input parsers (docs/RELIABILITY.md); a replay tool in normal builds.
        .target(name: "FuzzerDriver", path: "Tools/FuzzerDriver"),
        .executableTarget(
            name: "store-fuzz",
            dependencies: ["StoreCtlCore", "FuzzerDriver"],
            path: "Tools/store-fuzz",
            exclude: ["Corpus", "Regressions"]
        ),
        // A small program the tests start as a separate process (migrations racing, crashes).
        // With the trait, it also runs writers and durable consumers on PostgreSQL.
        .executableTarget(
            name: "store-fixture",
            dependencies: [
                "ObservableStore", "PowerLossVFS",
                .target(name: "ObservableStorePostgres", condition: .when(traits: ["PostgreSQL"])),
            ],
            path: "Tools/store-fixture"
        ),
        // A SQLite VFS shim for the crash tests: writes that were never synced vanish with the process.
        .target(name: "PowerLossVFS", path: "Tools/PowerLossVFS", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(name: "StoreTestSupport", dependencies: ["ObservableStore"], path: "Tests/StoreTestSupport"),
        // Every test suite runs each test on a thread of its own (ThreadPerTestTrait), at most twice the cores at once
        // (the width test_run_width.c sets for Swift Testing when the test process starts).
        .target(name: "TestScheduling", dependencies: ["ObservableStoreCore", "TestRunWidth"], path: "Tests/TestScheduling"),
        .target(name: "TestRunWidth", path: "Tests/TestRunWidth"),
        // The seeds' patterns (Examples/README.md), one file each, on the public API only; tested in ExamplesTests.
        .target(name: "ObservableStoreExamples", dependencies: ["ObservableStore"], path: "Examples", exclude: ["README.md"]),
        // The core alone, on an in-memory engine: it needs no SQLite.
        .testTarget(name: "ObservableStoreCoreTests", dependencies: ["ObservableStoreCore", "TestScheduling", logging]),
        .testTarget(name: "StoreSQLiteTests", dependencies: ["ObservableStoreCore", "StoreSQLite", "StoreTestSupport", "TestScheduling"]),
        .testTarget(
            name: "ObservableStoreTests",
            dependencies: [
                "ObservableStore", "ObservableStoreCore", "StoreSQLite", "StoreTestSupport", "TestScheduling", "store-fixture", "storectl",
                logging,
            ]
        ),
        // Each example's pattern on a real store; the node editor's with storectl as the other process.
        .testTarget(name: "ExamplesTests", dependencies: ["ObservableStoreExamples", "StoreTestSupport", "TestScheduling", "storectl"]),
        .testTarget(name: "StoreRecordMacrosTests", dependencies: [
                "StoreRecordMacros", "TestScheduling", swiftSyntax("SwiftSyntaxMacrosGenericTestSupport"),
                swiftSyntax("SwiftSyntaxMacroExpansion"), swiftSyntax("SwiftSyntaxBuilder"),
            ]),
        .testTarget(name: "StoreRecordTests", dependencies: ["ObservableStore", "StoreRecord", "StoreTestSupport", "TestScheduling"]),
        // The PostgreSQL engine on a real server (OBSERVABLE_STORE_POSTGRES_URL; skipped with the reason without it),
        // and the conformance suite: the same cases on both engines.
        .testTarget(
            name: "ObservableStorePostgresTests",
            dependencies: [
                "ObservableStorePostgres", "StorePostgres", "ObservableStore", "StoreTestSupport", "TestScheduling", "store-fixture",
                logging,
            ]
        ),
        // One conformance suite for both engines: the same cases on a SQLite file and on a PostgreSQL database (its
        // PostgreSQL suite only with the trait, and skipped with the reason without OBSERVABLE_STORE_POSTGRES_URL).
        .testTarget(
            name: "EngineConformanceTests",
            dependencies: [
                "ObservableStore", "ObservableStoreCore", "ObservableStorePostgres", "StoreTestSupport", "TestScheduling",
            ]
        ),
        .testTarget(
            name: "storectlTests",
            dependencies: [
                "ObservableStore", "StoreCtlCore", "StoreTestSupport", "TestScheduling", "storectl", "store-fixture", "store-fuzz",
            ]
        ),
    ]
)

for target in package.targets where [.regular, .executable, .test, .macro].contains(target.type) {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
        ] + warningsAsErrors()
}

// OBSERVABLE_STORE_WARNINGS_AS_ERRORS=1 (set by .ci/run): a warning in this package's Swift code fails every build,
// `swift build` and `swift test` alike. It is a setting rather than -Xswiftc -warnings-as-errors, whose builds and a
// plain `swift test`'s rebuild each other's modules; and it is off unless asked for, because Xcode builds a package
// dependency with -suppress-warnings, which conflicts with it.
func warningsAsErrors() -> [SwiftSetting] {
    Context.environment["OBSERVABLE_STORE_WARNINGS_AS_ERRORS"] == "1" ? [.treatAllWarnings(as: .error)] : []
}
