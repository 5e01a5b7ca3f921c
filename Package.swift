// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .treatAllWarnings(as: .error),
]

/// One systemLibrary target per C library: a module map and a one-line header; flags from pkg-config.
/// `providers` only prints a hint; `.ci/run` and `scripts/install-deps` install the -dev packages.
func cLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "jarvis-voice",
    products: [
        .executable(name: "jarvis-voice", targets: ["jarvis-voice"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
    ],
    targets: [
        // C layer
        cLibrary("CALSA", pkgConfig: "alsa", apt: "libasound2-dev"),
        cLibrary("CSpeexDSP", pkgConfig: "speexdsp", apt: "libspeexdsp-dev"),
        cLibrary("COpus", pkgConfig: "opus", apt: "libopus-dev"),
        cLibrary("CMPG123", pkgConfig: "libmpg123", apt: "libmpg123-dev"),
        cLibrary("CCurl", pkgConfig: "libcurl", apt: "libcurl4-openssl-dev"),
        cLibrary("CGPIOD", pkgConfig: "libgpiod", apt: "libgpiod-dev"),
        .target(name: "CShims", dependencies: ["CALSA", "CCurl"]),

        // pure
        .target(name: "AudioCore", swiftSettings: swiftSettings),

        // product
        .target(
            name: "Configuration",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Systemd",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),

        // wrappers
        .target(name: "ALSA", dependencies: ["CALSA", "CShims", "AudioCore"], swiftSettings: swiftSettings),
        .target(name: "SpeexDSP", dependencies: ["CSpeexDSP"], swiftSettings: swiftSettings),
        .target(name: "HTTP", dependencies: ["CCurl", "CShims"], swiftSettings: swiftSettings),

        // engines
        .target(
            name: "AudioEngine",
            dependencies: [
                "AudioCore", "ALSA", "SpeexDSP", "CShims",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        .target(
            name: "Jarvis",
            dependencies: ["HTTP", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),

        .target(
            name: "Realtime",
            dependencies: [
                "AudioCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // test-only library: in-process stand-in servers
        .target(
            name: "TestSupport",
            dependencies: [
                "Realtime",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // product
        .target(
            name: "Appliance",
            dependencies: [
                "Realtime", "Jarvis", "AudioCore", "AudioEngine",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // executable
        .executableTarget(
            name: "jarvis-voice",
            dependencies: [
                "AudioCore", "ALSA", "SpeexDSP", "AudioEngine", "Configuration", "Systemd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // test tools
        .executableTarget(name: "rtcheck-probe", dependencies: ["AudioCore"], path: "Sources/rtcheck-probe", swiftSettings: swiftSettings),

        // tests
        .testTarget(name: "AudioCoreTests", dependencies: ["AudioCore"], swiftSettings: swiftSettings),
        .testTarget(name: "ALSATests", dependencies: ["ALSA", "AudioCore"], swiftSettings: swiftSettings),
        .testTarget(name: "SpeexDSPTests", dependencies: ["SpeexDSP"], swiftSettings: swiftSettings),
        .testTarget(name: "ConfigurationTests", dependencies: ["Configuration"], swiftSettings: swiftSettings),
        .testTarget(name: "SystemdTests", dependencies: ["Systemd", .product(name: "Logging", package: "swift-log")], swiftSettings: swiftSettings),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "JarvisTests", dependencies: ["Jarvis", "HTTP", "TestSupport", .product(name: "Logging", package: "swift-log")], swiftSettings: swiftSettings),
        .testTarget(name: "AudioEngineTests", dependencies: ["AudioEngine", "AudioCore", "ALSA"], swiftSettings: swiftSettings),
        .testTarget(
            name: "RealtimeTests",
            dependencies: ["Realtime", "TestSupport", "AudioCore", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ApplianceTests",
            dependencies: [
                "Appliance", "Realtime", "Jarvis", "HTTP", "AudioCore", "AudioEngine", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
