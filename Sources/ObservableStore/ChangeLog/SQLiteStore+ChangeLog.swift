import Foundation
import ObservableStoreCore
import StoreSQLite

extension SQLiteStore {
    /// What is wrong with the change log's pieces, one line each (empty when nothing is): a commit row whose
    /// piece rows are not all there (`piece_count - 1` of them, numbered from 1), or piece rows without their
    /// commit. For `storectl check`; a log without pieces (below migration 0007) has nothing to check.
    package func changeLogPieceProblems() throws -> [String] {
        try read { tx in
            guard try ChangeLog.hasPieces(on: tx.connection) else { return [] }
            let incomplete = try tx.fetchRows(
                "SELECT seq, piece_count, found, rows FROM (SELECT c.seq, c.piece_count, "
                    + "(SELECT count(*) FROM \(ChangeLog.piecesTable) p WHERE p.seq = c.seq AND p.piece BETWEEN 1 AND c.piece_count - 1) AS found, "
                    + "(SELECT count(*) FROM \(ChangeLog.piecesTable) p WHERE p.seq = c.seq) AS rows FROM \(ChangeLog.commitsTable) c) "
                    + "WHERE found != piece_count - 1 OR rows != found"
            ).map { row in
                let count = row.value("piece_count", as: Int64.self) ?? 0
                return "change log: commit \(row.value("seq", as: Int64.self) ?? 0) is logged in \(count) pieces but has "
                    + "\(row.value("found", as: Int64.self) ?? 0) of its \(count - 1) piece rows (\(row.value("rows", as: Int64.self) ?? 0) in all)"
            }
            let orphans = try tx.fetchRows(
                "SELECT seq, count(*) AS pieces FROM \(ChangeLog.piecesTable) p "
                    + "WHERE NOT EXISTS (SELECT 1 FROM \(ChangeLog.commitsTable) c WHERE c.seq = p.seq) GROUP BY seq"
            ).map { row in
                "change log: \(row.value("pieces", as: Int64.self) ?? 0) piece rows of commit \(row.value("seq", as: Int64.self) ?? 0), "
                    + "which has no commit row"
            }
            return incomplete + orphans
        }
    }

    /// The last commit sequence assigned in this store (0 before the first commit).
    public func lastSequence() throws -> Int64 {
        try read { try ChangeLog.lastSequence($0) }
    }

    /// The log from piece `piece` of commit `sequence` on (or the first commit after it, when it is gone), in one
    /// snapshot: at most `limit` entries, and none after the payloads read reach ``ChangeLog/pageByteBudget``.
    package func loggedCommits(from sequence: Int64, piece: Int, limit: Int) throws -> [Commit] {
        try read { tx in
            let connection = tx.connection
            var commits: [Commit] = []
            var bytes = 0
            var isFull: Bool { commits.count >= limit || bytes >= ChangeLog.pageByteBudget }
            var after = sequence - 1
            var firstPiece = piece
            while !isFull {
                // A few commit rows at a time: each may hold a piece of a few MiB.
                let entries = try ChangeLog.read(
                    after: after, limit: limit - commits.count, byteBudget: ChangeLog.pageByteBudget - bytes, on: connection)
                for entry in entries {
                    after = entry.sequence
                    // A piece past the commit's last (a `Commit` made by the caller) starts at the next commit.
                    for index in (entry.sequence == sequence ? min(firstPiece, entry.pieceCount) : 0)..<entry.pieceCount {
                        if isFull { return commits }
                        guard let piece = index == 0 ? entry : try ChangeLog.readPiece(index, of: entry.sequence, on: connection)
                        else { break }
                        commits.append(try piece.decoded())
                        bytes += piece.encodedSize
                    }
                    if isFull { return commits }
                }
                if entries.isEmpty { break }
                firstPiece = 0
            }
            return commits
        }
    }
}
