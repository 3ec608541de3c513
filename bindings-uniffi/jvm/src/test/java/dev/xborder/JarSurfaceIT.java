// The built jar as a Java user meets it (Failsafe, after `package`): javap reads the public
// surface of dev.xborder and dev.xborder.redis, which must hold only the hand-written API: no
// `-`-mangled name (Kotlin's inline-class mangling), no UNIFFI_ constant, no generated
// (dev.xborder.ffi) or internal class in a signature, no file-facade class (XborderKt, ...).
// Also: the README, the Redis script, the sources jar and the javadoc jar are there.
package dev.xborder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class JarSurfaceIT {
    static Path jar() {
        Path jar = Path.of(System.getProperty("xborder.jar", "target/xborder-jvm-0.1.0.jar"));
        assertTrue(Files.isRegularFile(jar), "no jar at " + jar);
        return jar;
    }

    static List<String> apiClasses(Path jar) throws Exception {
        try (JarFile j = new JarFile(jar.toFile())) {
            return j.stream().map(e -> e.getName())
                .filter(n -> n.matches("dev/xborder/(redis/)?[^/]+\\.class"))
                .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
                .sorted().collect(Collectors.toList());
        }
    }

    @Test
    void thePublicSurfaceIsTheHandWrittenApi() throws Exception {
        Path jar = jar();
        List<String> classes = apiClasses(jar);
        for (String want : List.of("Webhooks", "Receiver", "Claims", "ClaimStore", "Beneficiaries", "BeneficiaryValidator",
                "Pagination", "PageWalker", "Events", "Catalog", "XborderException", "Accounts", "AccountKind", "Forms", "FormField",
                "redis.RedisClaimStore")) {
            assertTrue(classes.contains("dev.xborder." + want), "dev.xborder." + want + " missing from " + classes);
        }
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "javap").toString(),
            "-public", "-cp", jar.toString()));
        cmd.addAll(classes);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        List<String> problems = new ArrayList<>();
        int members = 0;
        for (String line : out.split("\n")) {
            if (line.startsWith("Compiled from") || line.isBlank() || line.equals("}")) continue;
            members++;
            // A name with '-' (Kotlin's mangling of ULong/UInt parameters: checkRegistration-Qn1smSk).
            if (line.replaceAll("\"[^\"]*\"", "").contains("-")) problems.add("mangled: " + line.trim());
            if (line.contains("UNIFFI_")) problems.add("UNIFFI_: " + line.trim());
            if (line.contains("dev.xborder.ffi.")) problems.add("generated class: " + line.trim());
            if (line.contains("dev.xborder.internal.")) problems.add("internal class: " + line.trim());
            if (line.matches(".*class dev\\.xborder\\.[A-Za-z.]*Kt\\b.*") || line.contains("XborderJava")) problems.add("facade: " + line.trim());
        }
        System.out.println("jar surface: " + classes.size() + " classes, " + members + " public members, " + problems.size() + " problems");
        assertTrue(members > 150, "javap printed only " + members + " members:\n" + out);
        assertEquals(Collections.emptyList(), problems);
    }

    @Test
    void theJarShipsItsReadmeScriptSourcesAndJavadoc() throws Exception {
        Path jar = jar();
        Path root = Path.of(System.getenv().getOrDefault("XBORDER_ROOT", "../.."));
        try (JarFile j = new JarFile(jar.toFile())) {
            String readme = new String(j.getInputStream(j.getJarEntry("META-INF/README.md")).readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(Files.readString(root.resolve("bindings-uniffi/dist-readme/kotlin.md")), readme,
                "META-INF/README.md is not dist-readme/kotlin.md (run bindings-uniffi/build.sh)");
            String lua = new String(j.getInputStream(j.getJarEntry("dev/xborder/redis/redis_compare_and_set.lua")).readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(Files.readString(root.resolve("core/src/claims/redis_compare_and_set.lua")), lua);
            assertTrue(j.getJarEntry("linux-x86-64/libxborder_ffi.so") != null);
        }
        String base = jar.getFileName().toString().replace(".jar", "");
        File sources = jar.resolveSibling(base + "-sources.jar").toFile();
        File javadoc = jar.resolveSibling(base + "-javadoc.jar").toFile();
        try (JarFile s = new JarFile(sources)) {
            for (String want : List.of("dev/xborder/Webhooks.kt", "dev/xborder/Claims.kt", "dev/xborder/redis/RedisClaimStore.kt", "xborder.kt")) {
                assertTrue(s.stream().anyMatch(e -> e.getName().endsWith(want)), want + " missing from " + sources);
            }
        }
        try (JarFile d = new JarFile(javadoc)) {
            List<String> names = d.stream().map(e -> e.getName()).collect(Collectors.toList());
            assertTrue(names.stream().anyMatch(n -> n.contains("Receiver") && n.endsWith(".html")), "no Receiver page in " + javadoc + ": " + names);
            assertTrue(names.stream().noneMatch(n -> n.contains("dev/xborder/ffi/") || n.contains("dev.xborder.ffi")),
                "the generated package is documented: " + names.stream().filter(n -> n.contains("ffi")).limit(5).collect(Collectors.toList()));
        }
    }
}
