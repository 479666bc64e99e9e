@testable import StoreSQLite
