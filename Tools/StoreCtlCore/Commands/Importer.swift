import Foundation
import ObservableStore

/// Runs an import through the library (so every commit is logged and reaches every listener), streamed: each
/// record is written as it is read, in one transaction (or one per `--batch-size` records).
struct Importer {
    let global: GlobalOptions
    let options: ImportOptions
    let upsert: Bool

    private struct DryRun: Error {}

    /// What the import did so far.
    private struct Counts {
        var inserted = 0
        var updated = 0
        var committed = 0
        var transactions = 0
        var total: Int { inserted + updated }
    }

    func run() throws {
        let store = try global.openCommandStore(.current(migrate: options.migrate))
        defer { store.close() }
        let (table, statements) = try store.withReadTransaction { tx in
            let table = try TableInfo.load(options.table, in: tx)
            return (table, try ImportStatements(table: table, upsert: upsert, in: tx))
        }
        let input = try RecordInput.open(options.input, format: options.inputFormat.flatMap(RecordInput.Format.init), table: table)
        let started = ContinuousClock.now
        let batchSize = options.batchSize ?? Int.max
        let progress = ProgressMeter(quiet: global.quiet)
        defer { progress.finish() }
        var counts = Counts()
        var record = InputRecord()
        do {
            var pending = try input.reader.next(into: &record)
            while pending {
                var batch = Counts()
                do {
                    try store.withWriteTransaction(origin: "storectl") { tx in
                        repeat {
                            if try statements.write(record, in: tx) { batch.inserted += 1 } else { batch.updated += 1 }
                            progress.update(
                                count: counts.total + batch.total, bytes: input.buffer.bytesRead, totalBytes: input.buffer.totalBytes)
                            pending = try input.reader.next(into: &record)
                        } while pending && batch.total < batchSize
                        if options.dryRun { throw DryRun() }
                    }
                    counts.committed += batch.total
                    counts.transactions += 1
                } catch is DryRun {
                    // Rolled back on purpose: the counts are what would have happened.
                }
                counts.inserted += batch.inserted
                counts.updated += batch.updated
            }
        } catch let error as StoreError {
            let outcome =
                counts.committed > 0
                ? "; \(counts.committed) records were committed before the failure (batches of \(batchSize))"
                : "; nothing was written"
            throw StoreError(error.code, error.message + outcome, sqliteCode: error.sqliteCode)
        }
        progress.finish()
        report(counts, table: table, since: started)
    }

    private func report(_ counts: Counts, table: TableInfo, since started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        let transactions = "\(counts.transactions) transaction\(counts.transactions == 1 ? "" : "s")"
        if options.dryRun {
            global.say(
                upsert
                    ? "dry run: would insert \(counts.inserted) and update \(counts.updated) records in \(table.name) (rolled back)"
                    : "dry run: would insert \(counts.inserted) records into \(table.name) (rolled back)")
        } else if upsert {
            global.say("inserted \(counts.inserted) and updated \(counts.updated) records in \(table.name) (\(transactions), \(milliseconds) ms)")
        } else {
            let records = "record\(counts.inserted == 1 ? "" : "s")"
            global.say("inserted \(counts.inserted) \(records) into \(table.name) (\(transactions), \(milliseconds) ms)")
        }
    }
}
