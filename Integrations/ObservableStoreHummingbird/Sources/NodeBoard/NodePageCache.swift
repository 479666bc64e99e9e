import Hummingbird
import Synchronization

/// The encoded bodies of recent `GET /api/nodes` pages, each with the commit sequence it was read at.
///
/// A page is served from here only while the store's last sequence is still the one it was read at, so a client
/// reads its own writes, and another process's logged commits, at once. A write by a program that does not log
/// (the `sqlite3` shell) is seen once the store's feed has noticed it and logged it (it then has a sequence of its
/// own). Bounded: at most ``capacity`` pages; a page read at an older sequence is dropped when a newer one is stored.
final class NodePageCache: Sendable {
    /// One page's query.
    struct Key: Hashable {
        let after: Int64?
        let limit: Int64
    }

    /// How many pages it keeps.
    let capacity: Int
    private let pages = Mutex<[Key: (sequence: Int64, body: ByteBuffer)]>([:])

    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    /// The body of page `key` when it was read at `sequence`.
    func body(for key: Key, at sequence: Int64) -> ByteBuffer? {
        pages.withLock { pages in
            guard let page = pages[key], page.sequence == sequence else { return nil }
            return page.body
        }
    }

    /// Keeps `body`, page `key` read at `sequence`; drops the pages of older sequences, and all when full.
    func store(_ body: ByteBuffer, for key: Key, at sequence: Int64) {
        pages.withLock { pages in
            if pages.contains(where: { $0.value.sequence < sequence }) { pages = pages.filter { $0.value.sequence >= sequence } }
            if pages.count >= capacity, pages[key] == nil { pages.removeAll() }
            pages[key] = (sequence, body)
        }
    }
}
