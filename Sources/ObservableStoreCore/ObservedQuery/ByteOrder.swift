import Foundation

/// The order of two byte strings as `memcmp` then length gives it: how SQLite compares blobs and `BINARY` text, and
/// PostgreSQL compares `bytea` and text under the `C` collation.
package enum ByteOrder {
    /// Negative when `a`'s UTF-8 bytes sort first, zero when equal, positive when `b`'s do.
    package static func compare(_ a: String, _ b: String) -> Int {
        bytewise(a.utf8, b.utf8)
    }

    /// Negative when `a` sorts first, zero when equal, positive when `b` does.
    package static func compare(_ a: Data, _ b: Data) -> Int {
        bytewise(a, b)
    }

    /// The comparison itself, specialized here for the two kinds above (a generic call from another module would not
    /// be, and would go through the collection's witnesses for each byte).
    private static func bytewise<C: Collection<UInt8>>(_ a: C, _ b: C) -> Int {
        var (left, right) = (a.makeIterator(), b.makeIterator())
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }
}
