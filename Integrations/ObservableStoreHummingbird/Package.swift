// swift-tools-version:6.2
// The Hummingbird 2 integration (in a folder not named Hummingbird: a root package's identity is its folder's name, and
// "hummingbird" is the dependency's) and the node board built on it: a package of its own, so that users of the core
// library never build Hummingbird. It depends on the root package by path, without its default traits (no storectl,
// no @Record macro, so neither swift-argument-parser's nor swift-syntax's build for the library). Its own trait
// "PostgreSQL" turns on the root's: `node-board --db postgres://…` and the tests on a PostgreSQL server.
import PackageDescription

// The root's PostgreSQL engine, with this package's trait "PostgreSQL".
let postgresStore = Target.Dependency.product(
    name: "ObservableStorePostgres", package: "ObservableStore", condition: .when(traits: ["PostgreSQL"]))

let package = Package(
    name: "ObservableStoreHummingbird",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ObservableStoreHummingbird", targets: ["ObservableStoreHummingbird"]),
        .executable(name: "node-board", targets: ["node-board"]),
        .executable(name: "sse-load", targets: ["sse-load"]),
    ],
    traits: [
        .trait(name: "PostgreSQL", description: "node-board on a PostgreSQL database, and its tests there (needs postgres-nio)."),
    ],
    dependencies: [
        .package(
            name: "ObservableStore", path: "../..",
            traits: [.trait(name: "PostgreSQL", condition: .when(traits: ["PostgreSQL"]))]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // The integration: a lifecycle Service owning a SQLiteStore, the SSE route of commits, metrics.
        .target(
            name: "ObservableStoreHummingbird",
            dependencies: [
                .product(name: "ObservableStore", package: "ObservableStore"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The node board application: REST API, the page and its script (compiled into the binary), wiring.
        .target(
            name: "NodeBoard",
            dependencies: [
                "ObservableStoreHummingbird",
                .product(name: "ObservableStore", package: "ObservableStore"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [.embedInCode("Page/index.html"), .embedInCode("Page/board.js"), .embedInCode("Page/board.css")]
        ),
        // `node-board --db PATH [--host 127.0.0.1] [--port 8080]`.
        .executableTarget(
            name: "node-board",
            dependencies: [
                "NodeBoard", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ObservableStore", package: "ObservableStore"), postgresStore,
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // A client of one event stream over a plain socket: the frame decoder shared by sse-load and the process tests.
        .target(name: "SSEWire", path: "Sources/sse-load/SSEWire"),
        // `sse-load run|write|floor`: the load test and benchmark tool (SSE clients, writer processes, the HTTP floor).
        .executableTarget(
            name: "sse-load",
            dependencies: [
                "SSEWire",
                .product(name: "ObservableStore", package: "ObservableStore"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/sse-load/Tool"
        ),
        // The PostgreSQL test server of the root's tests (links to its files in Tests/StoreTestSupport): the URL in
        // OBSERVABLE_STORE_POSTGRES_URL, or a private cluster started for the test process and removed when it ends.
        .target(name: "PostgresTestSupport", path: "Tests/PostgresTestSupport"),
        .testTarget(
            name: "ObservableStoreHummingbirdTests",
            dependencies: [
                "ObservableStoreHummingbird", "PostgresTestSupport", postgresStore,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(
            name: "NodeBoardTests",
            dependencies: [
                "NodeBoard", "SSEWire", "PostgresTestSupport", postgresStore,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // node-board and storectl started as processes, a real SSE client, and the browser test (Tests/browser).
        .testTarget(
            name: "NodeBoardProcessTests",
            dependencies: ["SSEWire", "PostgresTestSupport", .product(name: "ObservableStore", package: "ObservableStore")]
        ),
    ]
)

for target in package.targets where [.regular, .executable, .test].contains(target.type) {
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
