import Testing

/// Every conformance case, by name: each engine's suite runs them all (a parameterized test), and the conformance
/// table in docs/POSTGRES.md has one row each.
enum ConformanceCase: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case nodesRoundTrip
    case userInfoRoundTrips
    case everyValueKindRoundTrips
    case textWithNUL
    case queriesFilterOrderPageAndCount
    case aThrowingWriteLeavesNothing
    case savepointRollbackKeepsTheRest
    case multiRowUpdateAndUnfilteredDeleteReportEveryRow
    case primaryKeyChangeIsADeleteAndAnInsert
    case eventsOnlyAfterCommit
    case concurrentCommitsAreInSequenceOrder
    case namedListenersReplaceAndRemove
    case filtersByTableAndOrigin
    case everyCommitOnceInOrder
    case changesStreamTheCommits
    case bindAndFireHasNoGapOrDuplicate
    case bindAndFireOnAPropertyAndAQuery
    case observedValuesFollowTheirQuery
    case anObservedValueIsNeverRepeated
    case liveModelsFollowTheStoreAndEndWithIt
    case aTrackedReadFollowsWhatItReads
    case commitsOutsideAnObservedQueryReadNothing
    case certainChangesAreAppliedInMemoryAndUncertainOnesReadAgain
    case aTransactionOfSeveralChangesIsAppliedInOrder
    case whatOnlyTheDatabaseKnowsReadsAgain
    case underRandomWritesObservedQueriesEndFreshAndMostlyReadNothing
    case theChangeLogPagesThroughEveryCommit
    case durableListenerResumesAfterReopen
    case durableAcknowledgementInsideTheHandlersWrite
    case migrationHistoryIsRecorded
    case aNewerSchemaIsRefusedAndLeftUnchanged
    case aMigrationRehearsalChangesNothing
    case anEditedChecksumIsAcceptedOnlyForAnAppliedFile

    var testDescription: String { rawValue }

    /// Runs this case on `engine`.
    func run<E: ConformanceEngine>(on engine: E) async throws {
        typealias Cases = ConformanceCases
        switch self {
        case .nodesRoundTrip: try Cases.nodesRoundTrip(engine)
        case .userInfoRoundTrips: try Cases.userInfoRoundTrips(engine)
        case .everyValueKindRoundTrips: try Cases.everyValueKindRoundTrips(engine)
        case .textWithNUL: try Cases.textWithNUL(engine)
        case .queriesFilterOrderPageAndCount: try Cases.queriesFilterOrderPageAndCount(engine)
        case .aThrowingWriteLeavesNothing: try Cases.aThrowingWriteLeavesNothing(engine)
        case .savepointRollbackKeepsTheRest: try Cases.savepointRollbackKeepsTheRest(engine)
        case .multiRowUpdateAndUnfilteredDeleteReportEveryRow: try Cases.multiRowUpdateAndUnfilteredDeleteReportEveryRow(engine)
        case .primaryKeyChangeIsADeleteAndAnInsert: try Cases.primaryKeyChangeIsADeleteAndAnInsert(engine)
        case .eventsOnlyAfterCommit: try Cases.eventsOnlyAfterCommit(engine)
        case .concurrentCommitsAreInSequenceOrder: try Cases.concurrentCommitsAreInSequenceOrder(engine)
        case .namedListenersReplaceAndRemove: try Cases.namedListenersReplaceAndRemove(engine)
        case .filtersByTableAndOrigin: try Cases.filtersByTableAndOrigin(engine)
        case .everyCommitOnceInOrder: try Cases.everyCommitOnceInOrder(engine)
        case .changesStreamTheCommits: try await Cases.changesStreamTheCommits(engine)
        case .bindAndFireHasNoGapOrDuplicate: try Cases.bindAndFireHasNoGapOrDuplicate(engine)
        case .bindAndFireOnAPropertyAndAQuery: try Cases.bindAndFireOnAPropertyAndAQuery(engine)
        case .observedValuesFollowTheirQuery: try await Cases.observedValuesFollowTheirQuery(engine)
        case .anObservedValueIsNeverRepeated: try await Cases.anObservedValueIsNeverRepeated(engine)
        case .liveModelsFollowTheStoreAndEndWithIt: try await Cases.liveModelsFollowTheStoreAndEndWithIt(engine)
        case .aTrackedReadFollowsWhatItReads: try await Cases.aTrackedReadFollowsWhatItReads(engine)
        case .commitsOutsideAnObservedQueryReadNothing: try await Cases.commitsOutsideAnObservedQueryReadNothing(engine)
        case .certainChangesAreAppliedInMemoryAndUncertainOnesReadAgain: try await Cases.certainChangesAreAppliedInMemoryAndUncertainOnesReadAgain(engine)
        case .aTransactionOfSeveralChangesIsAppliedInOrder: try await Cases.aTransactionOfSeveralChangesIsAppliedInOrder(engine)
        case .whatOnlyTheDatabaseKnowsReadsAgain: try await Cases.whatOnlyTheDatabaseKnowsReadsAgain(engine)
        case .underRandomWritesObservedQueriesEndFreshAndMostlyReadNothing: try await Cases.underRandomWritesObservedQueriesEndFreshAndMostlyReadNothing(engine)
        case .theChangeLogPagesThroughEveryCommit: try Cases.theChangeLogPagesThroughEveryCommit(engine)
        case .durableListenerResumesAfterReopen: try Cases.durableListenerResumesAfterReopen(engine)
        case .durableAcknowledgementInsideTheHandlersWrite: try Cases.durableAcknowledgementInsideTheHandlersWrite(engine)
        case .migrationHistoryIsRecorded: try Cases.migrationHistoryIsRecorded(engine)
        case .aNewerSchemaIsRefusedAndLeftUnchanged: try Cases.aNewerSchemaIsRefusedAndLeftUnchanged(engine)
        case .aMigrationRehearsalChangesNothing: try Cases.aMigrationRehearsalChangesNothing(engine)
        case .anEditedChecksumIsAcceptedOnlyForAnAppliedFile: try Cases.anEditedChecksumIsAcceptedOnlyForAnAppliedFile(engine)
        }
    }
}
