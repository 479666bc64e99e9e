import Foundation

/// Where the executables the process tests start are: node-board next to the test bundle, storectl in the root
/// package's build folder (built by `swift build --product storectl` at the repository's root).
enum BuiltProducts {
    /// The integration package's folder (from this file's path).
    static let packageDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The repository's root (two folders above the package).
    static let repositoryRoot = packageDirectory.deletingLastPathComponent().deletingLastPathComponent()

    /// The folder of the running test binary: the package's bin path, where `swift test` also put node-board.
    static let binPath = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    /// `$NODE_BOARD`, else node-board in the package's bin path.
    static func nodeBoard() throws -> String {
        try executable(
            ProcessInfo.processInfo.environment["NODE_BOARD"] ?? binPath.appendingPathComponent("node-board").path,
            build: "swift build --package-path Integrations/ObservableStoreHummingbird --product node-board")
    }

    /// `$STORECTL`, else `<repository root>/.build/debug/storectl`.
    static func storectl() throws -> String {
        try executable(
            ProcessInfo.processInfo.environment["STORECTL"]
                ?? repositoryRoot.appendingPathComponent(".build/debug/storectl").path,
            build: "swift build --product storectl (at the repository's root), or set STORECTL")
    }

    /// `path`, if it is an executable file; else an error saying how to build it.
    private static func executable(_ path: String, build: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: path) else { throw MissingProduct(path: path, build: build) }
        return path
    }

    /// An executable the tests need is not built.
    struct MissingProduct: Error, CustomStringConvertible {
        let path: String
        let build: String
        var description: String { "\(path) is missing: build it with `\(build)`" }
    }
}
