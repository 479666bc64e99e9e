import Foundation
import TestScheduling
import Testing

/// docs/POSTGRES.md's conformance table has one row per case, in the suite's order, and lists every difference.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ConformanceTableTests {
    /// docs/POSTGRES.md, found from this file.
    private static let document = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/POSTGRES.md")

    @Test func theTableListsEveryCaseInOrderAndEveryDifference() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        // The rows of the section "Conformance" only (the page has other tables).
        let section = try #require(text.range(of: "\n## Conformance\n")).upperBound
        let end = text[section...].range(of: "\n## ")?.lowerBound ?? text.endIndex
        let rows = text[section..<end].split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| case ") }
        let names = rows.map { row in
            String(row.dropFirst(2).prefix { $0 != ":" && $0 != " " })
        }
        #expect(names == ConformanceCase.allCases.map(\.rawValue))
        for difference in EngineDifference.allCases {
            #expect(text.contains("- `\(difference.rawValue)`"), "docs/POSTGRES.md does not list \(difference.rawValue)")
        }
    }
}
