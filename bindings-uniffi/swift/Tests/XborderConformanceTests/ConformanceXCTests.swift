// tests/runners/swift/main.swift (copied beside this file by swift/test.sh, up to its ENTRY line)
// as one XCTest case, over the vector folders of XBORDER_SWIFT_VECTOR_ARGS (`folder=displayName`
// pairs separated by newlines, written by swift/test.sh).
import Foundation
import XCTest

final class ConformanceXCTests: XCTestCase {
    func testEveryVector() {
        let args = (ProcessInfo.processInfo.environment["XBORDER_SWIFT_VECTOR_ARGS"] ?? "")
            .split(separator: "\n").map(String.init)
        XCTAssertFalse(args.isEmpty, "XBORDER_SWIFT_VECTOR_ARGS names no vector folder")
        let run = runVectors(args)
        XCTAssertGreaterThan(run.passed, 0, "no vector ran")
        XCTAssertEqual(run.failed, 0, "FAIL lines above")
        XCTAssertEqual(run.skipped, 0, "SKIP lines above")
    }
}
