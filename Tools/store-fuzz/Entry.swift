import Foundation
import ObservableStore

#if FUZZING
import FuzzerDriver
#endif

/// `store-fuzz TARGET ARGUMENTS…`. Two builds of one program:
/// - fuzzing (`Tools/fuzz`, which builds with `-D FUZZING` and links libFuzzer): the ARGUMENTS are libFuzzer's
///   (a corpus folder, `-max_total_time=60`, …), and every input goes through the target;
/// - normal: the ARGUMENTS are files or folders, replayed through the target once each — how the tests replay
///   the seed corpus and the inputs that once crashed.
@main
struct FuzzEntry {
    /// The store and target shared by every input of the run. libFuzzer calls back on one thread.
    nonisolated(unsafe) static var session: (store: SQLiteStore, target: FuzzTarget)?

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: store-fuzz \(names) FILE-OR-FOLDER…\n".utf8))
            exit(2)
        }
        session = (FuzzTarget.makeStore(), target)
        #if FUZZING
        // libFuzzer sees the program name and its own arguments, not the target's name.
        var fuzzerArguments = [CommandLine.arguments[0]] + arguments.dropFirst()
        exit(fuzz(&fuzzerArguments))
        #else
        replay(arguments.dropFirst(), target: target)
        #endif
    }

    /// Runs `data` through the session's target.
    static func check(_ data: Data) {
        guard let (store, target) = session else { return }
        target.check(data, in: store)
    }

    #if FUZZING
    /// Hands the process to libFuzzer with `arguments` as its argv.
    private static func fuzz(_ arguments: inout [String]) -> Int32 {
        var cStrings = arguments.map { strdup($0) } + [nil]
        var argc = Int32(arguments.count)
        return cStrings.withUnsafeMutableBufferPointer { buffer in
            var argv = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in
                FuzzEntry.check(bytes.map { Data(bytes: $0, count: count) } ?? Data())
                return 0
            }
        }
    }
    #endif

    /// Replays each file, or each file of each folder, once.
    private static func replay(_ paths: ArraySlice<String>, target: FuzzTarget) {
        var count = 0
        for path in paths {
            for file in files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("store-fuzz: cannot read \(file)\n".utf8))
                    exit(1)
                }
                check(data)
                count += 1
            }
        }
        print("\(target.rawValue): \(count) inputs replayed, no finding")
    }

    /// `path` itself, or the regular files of the folder `path` (not `.gitkeep`), sorted by name.
    private static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [path]
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { $0 != ".gitkeep" }.sorted().map { path + "/" + $0 }
    }
}
