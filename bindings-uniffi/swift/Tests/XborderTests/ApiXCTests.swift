// bindings-uniffi/tests/swift/ApiTests.swift (copied beside this file by swift/test.sh, up to its
// ENTRY line, with Readme.swift: every ```swift block of swift.md, run by its readmeTests()) as
// one XCTest case: its checks count into `passed` and `failed`.
import XCTest

final class ApiXCTests: XCTestCase {
    func testApi() throws {
        passed = 0
        failed = 0
        try main()
        XCTAssertEqual(failed, 0, "FAIL lines above")
        XCTAssertGreaterThan(passed, 50, "the API checks did not run")
    }
}
