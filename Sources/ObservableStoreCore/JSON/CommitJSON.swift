import Foundation

/// The JSON objects of commits and row changes, as `storectl watch` prints them and event streams send them.
///
/// A change is `{"table":"nodes","op":"update","id":5,"changes":{"x":10.5}}`: `id` is the primary key's value (an
/// array for a composite key), `changes` holds every column for an insert, the changed columns for an update, and is
/// absent for a delete. Values are written by ``JSONText``; timestamps by ``timestamp(_:)``.
///
/// For example:
///
/// ```swift
/// let line = CommitJSON.object(commit)
/// // {"seq":12,"ts":"2026-11-26T13:00:00.123Z","origin":null,"changes":[{"table":"nodes","op":"delete","id":5}]}
/// ```
public enum CommitJSON {
    /// `commit` as one object: `seq`, `ts`, `origin` (null when none), `schema_changed` (only when true), `piece`
    /// (`[index, count]`, only for a commit logged in pieces) and `changes`, an array of ``changeMembers(_:)`` objects.
    public static func object(_ commit: Commit) -> String {
        var text = "{" + headMembers(commit)
        if commit.schemaChanged { text += ",\"schema_changed\":true" }
        if commit.piece.count > 1 { text += ",\"piece\":[\(commit.piece.index),\(commit.piece.count)]" }
        text += ",\"changes\":["
        for (index, change) in commit.changes.enumerated() {
            text += (index == 0 ? "{" : ",{") + changeMembers(change) + "}"
        }
        return text + "]}"
    }

    /// The members that say which commit an object is about, without braces: `"seq":12,"ts":"…","origin":"…"`
    /// (`null` when the commit has no origin).
    public static func headMembers(_ commit: Commit) -> String {
        "\"seq\":\(commit.sequence),\"ts\":\"\(timestamp(commit.committedAt))\",\"origin\":"
            + (commit.origin.map(JSONText.string) ?? "null")
    }

    /// The members of `change`'s object, without braces: `"table":…,"op":…,"id":…` and, for an insert or an
    /// update, `"changes":{…}` (every column for an insert, the changed columns for an update).
    public static func changeMembers(_ change: Change) -> String {
        let id = change.key.count == 1 ? JSONText.value(change.key[0]) : "[" + change.key.map(JSONText.value).joined(separator: ",") + "]"
        var members = "\"table\":\(JSONText.string(change.table)),\"op\":\"\(change.operation.rawValue)\",\"id\":\(id)"
        if let new = change.new {
            let names = change.operation == .update ? change.changedColumns : new.columns
            members += ",\"changes\":" + JSONText.object(names, names.map { new[$0] ?? .null })
        }
        return members
    }

    /// `date` as the store writes timestamps: RFC 3339 in UTC with milliseconds, `2026-11-26T13:00:00.123Z`.
    public static func timestamp(_ date: Date) -> String {
        Timestamp.format(date)
    }
}
