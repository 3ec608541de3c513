// The conformance runner (tests/runners/kotlin/Runner.kt, the same file run.sh compiles with
// kotlinc) as a JUnit 5 test, against the jar's classes: the library is found by JNA at
// linux-x86-64/libxborder_ffi.so on the classpath, no jna.library.path. Reads the folders of
// XBORDER_VECTOR_DIRS and the files of XBORDER_VECTOR_FILES (contract v4's accounts.json and
// forms.json), as jvm/test.sh exports them through xb_vector_dirs.
import java.io.File
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

class ConformanceTest {
    @Test
    fun everyVectorPasses() {
        val root = File(System.getenv("XBORDER_ROOT") ?: "../..").canonicalFile
        val dirs = vectorDirs().ifEmpty {
            listOf(File(root, "tests/vectors").path, File(root, "tests/vectors/hostile").path)
        }
        val files = vectorFiles().ifEmpty {
            listOf("accounts.json", "forms.json").map { File(root, "../shared/conformance/v4/$it") }.filter { it.isFile }.map { it.path }
        }
        dirs.forEach { assertTrue(File(it).isDirectory, "no vector folder $it") }
        files.forEach { assertTrue(File(it).isFile, "no vector file $it") }
        val run = runVectors(dirs, files)
        assertTrue(run.passed > 0, "no vector ran in $dirs and $files")
        assertEquals(0, run.failed, "failed vectors (FAIL lines above)")
        assertEquals(0, run.skipped, "skipped vectors (SKIP lines above)")
    }
}
