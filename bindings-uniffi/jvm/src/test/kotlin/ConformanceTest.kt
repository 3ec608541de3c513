// The conformance runner (tests/runners/kotlin/Runner.kt, the same file run.sh compiles with
// kotlinc) as a JUnit 5 test, against the jar's classes: the library is found by JNA at
// linux-x86-64/libxborder_ffi.so on the classpath, no jna.library.path.
import java.io.File
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

class ConformanceTest {
    @Test
    fun everyVectorPasses() {
        val dirs = vectorDirs().ifEmpty {
            val root = File(System.getenv("XBORDER_ROOT") ?: "../..").canonicalFile
            listOf(File(root, "tests/vectors").path, File(root, "tests/vectors/hostile").path)
        }
        dirs.forEach { assertTrue(File(it).isDirectory, "no vector folder $it") }
        val run = runVectors(dirs)
        assertTrue(run.passed > 0, "no vector ran in $dirs")
        assertEquals(0, run.failed, "failed vectors (FAIL lines above)")
        assertEquals(0, run.skipped, "skipped vectors (SKIP lines above)")
    }
}
