import Metrics

/// The metrics of one ``CommitStream``, made through swift-metrics with the service's factory, each with the
/// dimension `stream` (the stream's name).
struct CommitStreamMetrics: Sendable {
    /// `observable_store_sse_commits_total`: commits the stream read from the change log (whole commits).
    let commits: Counter
    /// `observable_store_sse_events_delivered_total`: commit and resync frames written to clients (not heartbeats).
    let eventsDelivered: Counter
    /// `observable_store_sse_backlog`: frames queued for clients, not yet written.
    let backlog: Meter
    /// `observable_store_sse_clients`: clients connected.
    let clients: Meter
    /// `observable_store_sse_delivery_latency_seconds`: from a commit's time to its live frame being written.
    let latency: Timer
    private let resyncs: [CommitStream.ResyncReason: Counter]

    init(stream: String, factory: any MetricsFactory) {
        let dimensions = [("stream", stream)]
        commits = Counter(label: "observable_store_sse_commits_total", dimensions: dimensions, factory: factory)
        eventsDelivered = Counter(label: "observable_store_sse_events_delivered_total", dimensions: dimensions, factory: factory)
        backlog = Meter(label: "observable_store_sse_backlog", dimensions: dimensions, factory: factory)
        clients = Meter(label: "observable_store_sse_clients", dimensions: dimensions, factory: factory)
        latency = Timer(label: "observable_store_sse_delivery_latency_seconds", dimensions: dimensions, factory: factory)
        var resyncs: [CommitStream.ResyncReason: Counter] = [:]
        for reason in CommitStream.ResyncReason.allCases {
            resyncs[reason] = Counter(
                label: "observable_store_sse_resyncs_total", dimensions: dimensions + [("reason", reason.rawValue)], factory: factory)
        }
        self.resyncs = resyncs
    }

    /// Counts a resync frame sent for `reason`.
    func resync(_ reason: CommitStream.ResyncReason) {
        resyncs[reason]?.increment()
    }
}
