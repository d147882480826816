import RpcWire
import TinyvexProtocol

/// The pages of one paginated live query, as a value: which page subscriptions to open and
/// close, and what the query shows.
///
/// Each page is a live subscription of the query with its own `paginationOpts`. A page first
/// subscribes with `numItems` from its `cursor`; its first value's `continueCursor` becomes its
/// `endCursor` and the page subscribes again, pinned, so its end stays where it was while
/// documents come and go (the unpinned subscription is dropped, and its later values ignored).
/// The next page starts at that same cursor, so no item is in two pages or in none.
struct PaginationState<Item: Sendable>: Sendable {
    /// Something the shell does outside the lock.
    enum Action: Sendable, Equatable {
        /// Opens the subscription `token` of a page with these options.
        case subscribe(token: UInt64, options: TinyvexPaginationOptions)
        /// Closes the subscription `token`.
        case unsubscribe(token: UInt64)
    }

    /// How the query ended.
    enum Ending: Sendable {
        case failed(TinyvexError)
        case cancelled
    }

    struct Page: Sendable {
        let cursor: String?
        let numItems: Int
        var endCursor: String?
        /// The subscription whose values count.
        var token: UInt64
        var items: [Item]?
        /// The value the items were decoded from, to tell a value that changes nothing.
        var raw: JSONValue?
        var isDone = false
        var continueCursor: String?
        /// Whether the pinned subscription has delivered.
        var pinnedArrived = false
    }

    private(set) var pages: [Page] = []
    private var nextToken: UInt64 = 0
    private(set) var ending: Ending?

    /// Opens the first page of `numItems`.
    mutating func start(numItems: Int) -> [Action] {
        guard pages.isEmpty, ending == nil else { return [] }
        return [open(cursor: nil, numItems: numItems)]
    }

    /// Opens the next page of `numItems` after the last one; `nil` (nothing done) unless the
    /// status is ``TinyvexPaginationStatus/canLoadMore``.
    mutating func loadMore(numItems: Int) -> [Action]? {
        guard status == .canLoadMore, let last = pages.last, let cursor = last.continueCursor else { return nil }
        return [open(cursor: cursor, numItems: numItems)]
    }

    /// The subscription `token` delivered `result` (decoded from `raw`); returns what to open
    /// and close, and whether what the query shows changed.
    mutating func received(token: UInt64, _ result: TinyvexPaginationResult<Item>, raw: JSONValue) -> (actions: [Action], changed: Bool) {
        guard ending == nil, let index = pages.firstIndex(where: { $0.token == token }) else { return ([], false) }
        // The pinned subscription's first value is mostly the one the page shows already.
        let same = pages[index].raw == raw
        pages[index].raw = raw
        pages[index].items = result.page
        pages[index].isDone = result.isDone
        pages[index].continueCursor = result.continueCursor
        guard pages[index].endCursor == nil else {
            pages[index].pinnedArrived = true
            return ([], !same)
        }
        // The first value: pin the page's end where it is now.
        nextToken += 1
        let pinned = nextToken
        pages[index].endCursor = result.continueCursor
        pages[index].token = pinned
        let options = TinyvexPaginationOptions(numItems: pages[index].numItems, cursor: pages[index].cursor, endCursor: result.continueCursor)
        return ([.subscribe(token: pinned, options: options), .unsubscribe(token: token)], true)
    }

    /// The query ends with `error` (a page failed): every page subscription closes.
    mutating func fail(_ error: TinyvexError) -> [Action] {
        end(.failed(error))
    }

    /// The query is cancelled: every page subscription closes.
    mutating func cancel() -> [Action] {
        end(.cancelled)
    }

    /// What the query shows.
    var snapshot: TinyvexPaginatedResults<Item> {
        var results: [Item] = []
        for page in pages {
            guard let items = page.items else { break }
            results += items
        }
        return TinyvexPaginatedResults(results: results, status: status)
    }

    /// Whether every page shows its pinned subscription's value (none is loading or pinning).
    var isSettled: Bool {
        ending == nil && pages.allSatisfy(\.pinnedArrived)
    }

    var status: TinyvexPaginationStatus {
        guard let last = pages.last, last.items != nil else {
            return pages.count > 1 ? .loadingMore : .loadingFirstPage
        }
        return last.isDone ? .exhausted : .canLoadMore
    }

    private mutating func open(cursor: String?, numItems: Int) -> Action {
        nextToken += 1
        pages.append(Page(cursor: cursor, numItems: numItems, token: nextToken))
        return .subscribe(token: nextToken, options: TinyvexPaginationOptions(numItems: numItems, cursor: cursor))
    }

    private mutating func end(_ ending: Ending) -> [Action] {
        guard self.ending == nil else { return [] }
        self.ending = ending
        return pages.map { .unsubscribe(token: $0.token) }
    }
}
