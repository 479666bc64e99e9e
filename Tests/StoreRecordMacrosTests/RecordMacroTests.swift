import SwiftSyntaxBuilder
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import TestScheduling
import Testing

@testable import StoreRecordMacros

/// What `@Record` writes for a struct, and the errors it reports for declarations it cannot store.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct RecordMacroTests {
    private let macros: [String: MacroSpec] = [
        "Record": MacroSpec(type: RecordMacro.self, conformances: ["Record", "RowDecodable", "RowEncodable"]),
        "Column": MacroSpec(type: ColumnMacro.self),
    ]

    @Test func expandsAStructIntoAFastRecord() {
        assertExpansion(
            """
            @Record(table: "notes")
            public struct Note {
                public var id: Int64?
                public var title: String
                @Column("body_text") public var body: String?
                public var createdAt: Date
                public var isEmpty: Bool { title.isEmpty }
                public static let limit = 10
            }
            """,
            expandedSource: """
                public struct Note {
                    public var id: Int64?
                    public var title: String
                    public var body: String?
                    public var createdAt: Date
                    public var isEmpty: Bool { title.isEmpty }
                    public static let limit = 10

                    public enum CodingKeys: String, CodingKey {
                        case id
                        case title
                        case body = "body_text"
                        case createdAt = "created_at"
                    }
                }

                extension Note: Record, RowDecodable, RowEncodable {
                    public static let tableName = "notes"
                    public static var primaryKey: String {
                        "id"
                    }
                    public typealias Key = Int64
                    public typealias Columns = CodingKeys
                    /// The record's columns as typed properties, for key-path filters.
                    public struct ColumnPaths: Sendable {
                        public var id: ObservableStoreCore.TypedColumn<Int64> {
                            ObservableStoreCore.TypedColumn("id")
                        }
                        public var title: ObservableStoreCore.TypedColumn<String> {
                            ObservableStoreCore.TypedColumn("title")
                        }
                        public var body: ObservableStoreCore.TypedColumn<String> {
                            ObservableStoreCore.TypedColumn("body_text")
                        }
                        public var createdAt: ObservableStoreCore.TypedColumn<Date> {
                            ObservableStoreCore.TypedColumn("created_at")
                        }
                    }
                    public static var columnPaths: ColumnPaths {
                        ColumnPaths()
                    }
                    public init(row: ObservableStoreCore.RowReader) throws {
                        self.id = try row.decodeIfPresent(Int64.self, "id")
                        self.title = try row.decode(String.self, "title")
                        self.body = try row.decodeIfPresent(String.self, "body_text")
                        self.createdAt = try row.decode(Date.self, "created_at")
                    }
                    public func encode(to row: inout ObservableStoreCore.RowWriter) {
                        row.encode(self.id, "id")
                        row.encode(self.title, "title")
                        row.encode(self.body, "body_text")
                        row.encode(self.createdAt, "created_at")
                    }
                    public mutating func didInsert(rowID: Int64) {
                        self.id = rowID
                    }
                }
                """)
    }

    @Test func snakeCaseSplitsWordsAndAcronyms() {
        #expect(snakeCase("createdAt") == "created_at")
        #expect(snakeCase("userID") == "user_id")
        #expect(snakeCase("URLString") == "url_string")
        #expect(snakeCase("x") == "x")
        #expect(snakeCase("line2Width") == "line2_width")
    }

    @Test(arguments: [
        ("@Record(table: \"t\") class C { var id: Int64? }", "@Record applies to a struct"),
        ("@Record(table: name) struct S { var id: Int64? }", RecordDiagnostic.tableNotALiteral.message),
        ("@Record(table: \"t\") struct S { var id = 0 }", RecordDiagnostic.untypedProperty.message),
        ("@Record(table: \"t\") struct S { var name: String }", RecordDiagnostic.noPrimaryKey.message),
        ("@Record(table: \"t\") struct S { var id, other: Int64 }", RecordDiagnostic.severalBindings.message),
        (
            "@Record(table: \"t\") struct S { var id: Int64?\n enum CodingKeys: String, CodingKey { case id } }",
            RecordDiagnostic.codingKeysWritten.message
        ),
    ])
    func refusesWhatItCannotStore(source: String, message: String) {
        let reported = diagnostics(of: source)
        #expect(reported.contains(message), "\(reported)")
    }

    /// What expanding `source` reports, expecting no diagnostic: the failures name the diagnostics received.
    private func diagnostics(of source: String) -> String {
        var messages: [String] = []
        assertMacroExpansion(
            source, expandedSource: "", macroSpecs: macros,
            failureHandler: { messages.append($0.message) })
        return messages.joined(separator: "\n")
    }

    private func assertExpansion(
        _ source: String, expandedSource: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        assertMacroExpansion(
            source, expandedSource: expandedSource, macroSpecs: macros,
            failureHandler: { Issue.record(Comment(rawValue: $0.message), sourceLocation: sourceLocation) })
    }
}
