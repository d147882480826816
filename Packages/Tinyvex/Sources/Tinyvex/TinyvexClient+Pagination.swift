extension TinyvexClient {
    /// A paginated live query, as Convex's `usePaginatedQuery`: the query `name` is subscribed
    /// page by page, each page with `params` plus `paginationOpts` (`{numItems, cursor}`, and
    /// `endCursor` once the page's end is pinned), and the pages' items are shown concatenated
    /// with a status; ``TinyvexPaginatedQuery/loadMore(_:)`` adds the next page. The query's
    /// function pages with the server's `paginate` and returns `{page, isDone,
    /// continueCursor}` of `Item`s.
    ///
    /// ```swift
    /// let messages = client.subscribePaginated("messages.page", params: ["channel": "general"], initialNumItems: 20, as: Message.self)
    /// let cancellable = messages.publisher.sink(receiveCompletion: { _ in }, receiveValue: { print($0.results.map(\.text), $0.status) })
    /// messages.loadMore(20)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The query, which takes `paginationOpts` among its params.
    ///   - params: The query's other params, an object.
    ///   - initialNumItems: How many items the first page reads (at least 1; the server refuses
    ///     more than its `maxPaginationItems`, which ends the query with `TVX002`).
    ///   - type: The type of one item.
    /// - Returns: The live query; see ``TinyvexPaginatedQuery`` for its lifetime and errors.
    public func subscribePaginated<Item: Decodable & Sendable & SendableMetatype>(
        _ name: String, params: any Encodable, initialNumItems: Int, as type: Item.Type
    ) -> TinyvexPaginatedQuery<Item> {
        TinyvexPaginatedQuery(client: self, name: name, params: params, initialNumItems: initialNumItems)
    }
}
