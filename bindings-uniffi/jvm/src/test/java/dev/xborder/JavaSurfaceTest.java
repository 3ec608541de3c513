// Every part of the generated binding that Java cannot call by its name (a Kotlin function or
// getter taking or returning UInt/ULong is compiled to a mangled name such as `step-ARK9YDc`; a
// constructor taking one only exists with a synthetic DefaultConstructorMarker parameter) has a
// Java-friendly twin in XborderJava (or JavaClaimStore). Found by reflection over the compiled
// classes, so a u64 added to the uniffi interface without its facade fails here.
package dev.xborder;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class JavaSurfaceTest {
    /** Records only the library makes (a host never constructs them): their getters are covered. */
    static final Set<String> OUTPUT_ONLY = Set.of("PageInfo", "Drift", "ClaimNeed$CompareAndSet");
    static final Pattern MANGLED = Pattern.compile("^([A-Za-z][A-Za-z0-9]*)-[A-Za-z0-9_-]{5,}$");

    static String lower(String s) { return Character.toLowerCase(s.charAt(0)) + s.substring(1); }
    static String upper(String s) { return Character.toUpperCase(s.charAt(0)) + s.substring(1); }

    static List<Class<?>> bindingClasses() throws IOException, ClassNotFoundException {
        Path dir = Paths.get(XborderJava.class.getProtectionDomain().getCodeSource().getLocation().getPath(), "dev", "xborder");
        List<Class<?>> out = new ArrayList<>();
        List<String> names;
        try (Stream<Path> files = Files.list(dir)) {
            names = files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".class")).sorted().collect(Collectors.toList());
        }
        for (String file : names) {
            String name = file.substring(0, file.length() - ".class".length());
            if (name.matches("^(FfiConverter|Uniffi|RustBuffer|ForeignBytes|IntegrityCheck|NoHandle|XborderJava|JavaClaimStore|_UniFFI).*")) continue;
            out.add(Class.forName("dev.xborder." + name, false, JavaSurfaceTest.class.getClassLoader()));
        }
        return out;
    }

    @Test
    void everyUnsignedEntryPointHasAJavaTwin() throws Exception {
        Set<String> facade = Arrays.stream(XborderJava.class.getMethods())
            .filter(m -> Modifier.isStatic(m.getModifiers())).map(Method::getName).collect(Collectors.toCollection(TreeSet::new));
        Set<String> missing = new TreeSet<>();
        int seen = 0;
        for (Class<?> c : bindingClasses()) {
            String simple = c.getName().substring("dev.xborder.".length());
            for (Method m : c.getDeclaredMethods()) {
                if (!Modifier.isPublic(m.getModifiers()) || m.isSynthetic() || m.isBridge()) continue;
                Matcher mm = MANGLED.matcher(m.getName());
                if (!mm.matches()) continue;
                String base = mm.group(1);
                if (base.equals("copy") || base.matches("component[0-9]+")) continue;  // data-class plumbing
                seen++;
                if (base.equals("compareAndSet") && ClaimStore.class.isAssignableFrom(c)) {
                    // A store written in Java implements JavaClaimStore.compareAndSetEntry(..., Long).
                    continue;
                }
                String want = base;
                if (base.startsWith("get") && base.length() > 3 && Character.isUpperCase(base.charAt(3))) want = lower(base.substring(3));
                if (simple.endsWith("$Companion")) want = lower(simple.substring(0, simple.length() - "$Companion".length())) + upper(base);
                if (!facade.contains(want)) missing.add(simple + "." + m.getName() + " -> XborderJava." + want);
            }
            if (simple.endsWith("$Companion") || Modifier.isAbstract(c.getModifiers()) || OUTPUT_ONLY.contains(simple)) continue;
            for (Constructor<?> k : c.getConstructors()) {
                Class<?>[] ps = k.getParameterTypes();
                // (a lone marker is a Kotlin object's plumbing, not a constructor a host calls)
                if (ps.length < 2 || !ps[ps.length - 1].getName().equals("kotlin.jvm.internal.DefaultConstructorMarker")) continue;
                // Kotlin's defaults form (the parameters, an int mask, the marker) beside a public
                // constructor of all the parameters: Java calls that one, passing every argument
                // (BeneficiaryValidator(rulesJson, banksCountry, banksJson), null for none).
                if (ps.length >= 3 && ps[ps.length - 2] == int.class
                        && Arrays.stream(c.getConstructors()).anyMatch(full -> !full.isSynthetic()
                            && Arrays.equals(full.getParameterTypes(), Arrays.copyOf(ps, ps.length - 2)))) continue;
                seen++;
                String want = lower(simple.contains("$") ? simple.substring(simple.lastIndexOf('$') + 1) : simple);
                if (!facade.contains(want)) missing.add("new " + simple + "(" + Arrays.toString(ps) + ") -> XborderJava." + want);
            }
        }
        assertTrue(seen >= 20, "the scan found only " + seen + " unsigned entry points: is it looking at the binding?");
        assertTrue(missing.isEmpty(), "not callable from Java without a twin: " + missing);
        // A store written in Java needs no ULong.
        assertTrue(Arrays.stream(JavaClaimStore.class.getMethods()).anyMatch(m -> m.getName().equals("compareAndSetEntry")
            && m.getParameterTypes()[3] == Long.class));
    }
}
