// The seed's SwiftUI views, compiled where SwiftUI exists (it does not on Linux, where
// PlatformExamples.swift, ViewModelExamples.swift and BestPracticesStateExamples.swift run
// their logic). Nothing here runs: SwiftUI needs an app to show views.
//
// Adapted throughout: the views use the test target's view models and models; views the seed
// uses without declaring (`UserProfileCard`) are declared, minimally. The seed's own
// `RpcFetch` property wrapper is not repeated here: RpcDo ships it complete (it can fetch),
// and `NameView` below uses it. `AddUserSheet` uses iOS-only modifiers, so it and the list
// that presents it compile on iOS only.
#if canImport(SwiftUI)
import Foundation
import RpcDo
import SwiftUI

// Seed: "Environment-Based Session Injection", the view (the environment key is RpcDo's).
struct ProfileView: View {
    @Environment(\.rpcClient) private var client
    @State private var user: User?

    var body: some View {
        Group {
            if let user {
                UserProfileCard(user: user)
            } else {
                ProgressView()
            }
        }
        .task {
            guard let client else { return }
            user = try? await client.api.users.current
        }
    }
}

/// Added: the seed shows `UserProfileCard` without declaring it.
struct UserProfileCard: View {
    let user: User

    var body: some View {
        Text(user.name)
    }
}

// Seed: "Real-Time Updates", the badge.
struct NotificationBadge: View {
    @State private var viewModel: NotificationViewModel

    init(client: RpcClient) {
        _viewModel = State(initialValue: NotificationViewModel(client: client))
    }

    var body: some View {
        Menu {
            ForEach(viewModel.notifications.prefix(5)) { notification in
                Button {
                    // Handle tap
                } label: {
                    Label {
                        VStack(alignment: .leading) {
                            Text(notification.title)
                            Text(notification.body)
                                .font(.caption)
                                .foregroundStyle(.secondary)
                        }
                    } icon: {
                        Image(systemName: notification.isRead ? "bell" : "bell.badge")
                    }
                }
            }

            Divider()

            Button("Mark All Read") {
                Task {
                    try? await viewModel.markAllRead()
                }
            }
        } label: {
            Image(systemName: "bell.fill")
                .symbolRenderingMode(.hierarchical)
                .overlay(alignment: .topTrailing) {
                    if viewModel.unreadCount > 0 {
                        Text("\(min(viewModel.unreadCount, 99))")
                            .font(.caption2)
                            .fontWeight(.bold)
                            .foregroundStyle(.white)
                            .padding(4)
                            .background(.red, in: Circle())
                            .offset(x: 8, y: -8)
                    }
                }
        }
        .task {
            viewModel.startListening()
        }
        .onDisappear {
            viewModel.stopListening()
        }
    }
}

// Seed: "Custom Property Wrapper", used: the current user's name, fetched when the view appears.
struct NameView: View {
    @RpcFetch(\.users.current.name) private var name: String?

    var body: some View {
        Text(name ?? ($name.hasError ? "unavailable" : "…"))
            .task { await _name.load() }
    }
}

#if os(iOS)
// Seed: "SwiftUI Views" and "Add User Sheet".
struct UserListView: View {
    @State private var viewModel: UserListViewModel
    @State private var showingAddSheet = false

    init(client: RpcClient) {
        _viewModel = State(initialValue: UserListViewModel(client: client))
    }

    var body: some View {
        NavigationStack {
            List {
                ForEach(viewModel.users) { user in
                    NavigationLink(value: user) {
                        UserRow(user: user)
                    }
                }
                .onDelete(perform: deleteUsers)
            }
            .navigationTitle("Users")
            .toolbar {
                ToolbarItem(placement: .primaryAction) {
                    Button("Add", systemImage: "plus") {
                        showingAddSheet = true
                    }
                }
            }
            .overlay {
                if viewModel.isLoading {
                    ProgressView()
                }
            }
            .task {
                await viewModel.load()
            }
            .refreshable {
                await viewModel.load()
            }
            .sheet(isPresented: $showingAddSheet) {
                AddUserSheet(viewModel: viewModel)
            }
            .alert("Error", isPresented: .constant(viewModel.error != nil)) {
                Button("OK") { viewModel.error = nil }
            } message: {
                Text(viewModel.error?.localizedDescription ?? "")
            }
        }
    }

    private func deleteUsers(at offsets: IndexSet) {
        Task {
            for index in offsets {
                try? await viewModel.deleteUser(viewModel.users[index])
            }
        }
    }
}

struct UserRow: View {
    let user: User

    var body: some View {
        HStack {
            AsyncImage(url: URL(string: user.avatarUrl)) { image in
                image
                    .resizable()
                    .aspectRatio(contentMode: .fill)
            } placeholder: {
                Color.gray.opacity(0.3)
            }
            .frame(width: 44, height: 44)
            .clipShape(Circle())

            VStack(alignment: .leading) {
                Text(user.name)
                    .font(.headline)
                Text(user.email)
                    .font(.caption)
                    .foregroundStyle(.secondary)
            }

            Spacer()
        }
    }
}

struct AddUserSheet: View {
    @Environment(\.dismiss) private var dismiss
    let viewModel: UserListViewModel

    @State private var name = ""
    @State private var email = ""
    @State private var isCreating = false

    var body: some View {
        NavigationStack {
            Form {
                TextField("Name", text: $name)
                    .textContentType(.name)

                TextField("Email", text: $email)
                    .textContentType(.emailAddress)
                    .keyboardType(.emailAddress)
                    .textInputAutocapitalization(.never)
            }
            .navigationTitle("Add User")
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button("Cancel") { dismiss() }
                }
                ToolbarItem(placement: .confirmationAction) {
                    Button("Add") {
                        Task {
                            isCreating = true
                            defer { isCreating = false }

                            do {
                                _ = try await viewModel.createUser(
                                    name: name,
                                    email: email
                                )
                                dismiss()
                            } catch {
                                // Handle error
                            }
                        }
                    }
                    .disabled(name.isEmpty || email.isEmpty || isCreating)
                }
            }
            .overlay {
                if isCreating {
                    ProgressView()
                }
            }
        }
    }
}
#endif
#endif
