import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plug-in of the `StoreRecord` product: `@Record` and `@Column`.
@main struct StoreRecordPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [RecordMacro.self, ColumnMacro.self]
}
