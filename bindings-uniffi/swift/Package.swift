// swift-tools-version:5.9
// The Swift package of xborder: the module `Xborder` (uniffi's generated Xborder.swift) over the
// C module `XborderFFI` (its header, and the native library libxborder_ffi).
//
// This folder is the package's template: the generated files are not committed. bindings-uniffi/
// swift/test.sh assembles the package (Sources/Xborder/Xborder.swift and Sources/XborderFFI/
// XborderFFI.h from bindings-uniffi/dist/swift, the tests' shared sources) and runs `swift build`
// and `swift test` in the Debian trixie root. On Linux the library is found through pkg-config
// (`xborder_ffi.pc`, which `test.sh --assemble-only DIR` writes in DIR/pkgconfig, on
// PKG_CONFIG_PATH), which SwiftPM reads itself: no unsafeFlags. On Apple
// platforms the same targets take an XCFramework as a binary target instead (see MOBILE.md).
import PackageDescription

let package = Package(
    name: "Xborder",
    products: [
        .library(name: "Xborder", targets: ["Xborder"]),
    ],
    targets: [
        // module.modulemap links xborder_ffi; pkg-config gives the folder the library is in.
        .systemLibrary(name: "XborderFFI", path: "Sources/XborderFFI", pkgConfig: "xborder_ffi"),
        .target(name: "Xborder", dependencies: ["XborderFFI"], path: "Sources/Xborder"),
        // The API tests of bindings-uniffi/tests/swift/ApiTests.swift, as an XCTest case.
        .testTarget(name: "XborderTests", dependencies: ["Xborder"], path: "Tests/XborderTests"),
        // The conformance runner of tests/runners/swift/main.swift, as an XCTest case.
        .testTarget(name: "XborderConformanceTests", dependencies: ["Xborder"], path: "Tests/XborderConformanceTests"),
    ]
)
