// swift-tools-version:6.1
// A service as a user writes one: it depends on the library alone (traits: [] leaves storectl out) and has a
// target named CSQLite of its own. Built and run by Tests/ClientPackage/check, which .ci/run calls.
import PackageDescription

let package = Package(
    name: "ClientPackage",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "ObservableStore", path: "../..", traits: [])],
    targets: [
        .target(name: "CSQLite"),
        .executableTarget(
            name: "client-smoke",
            dependencies: ["CSQLite", .product(name: "ObservableStore", package: "ObservableStore")]
        ),
    ]
)
