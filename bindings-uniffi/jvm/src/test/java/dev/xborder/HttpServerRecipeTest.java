// The README's Java recipe (the JDK's HttpServer: verify, decode, claim, persist, complete), taken
// from the README as written (the first ```java block of dist-readme/kotlin.md), compiled here
// with the JDK's compiler against the test classpath, started on a loopback port and sent signed,
// tampered, duplicate, unsigned, held and failing deliveries: every answer is core's.
package dev.xborder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

class HttpServerRecipeTest {
    static final String SECRET = "whsec_test";

    static String readmeJava() throws Exception {
        Path readme = Path.of(System.getenv().getOrDefault("XBORDER_ROOT", "../.."), "bindings-uniffi/dist-readme/kotlin.md");
        List<String> lines = Files.readAllLines(readme);
        StringBuilder code = new StringBuilder();
        boolean in = false;
        for (String line : lines) {
            if (!in && line.equals("```java")) { in = true; continue; }
            if (in && line.startsWith("```")) return code.toString();
            if (in) code.append(line).append('\n');
        }
        throw new AssertionError("no ```java block in " + readme);
    }

    static byte[] envelope(String id) {
        return ("{\"id\":\"" + id + "\",\"event\":\"order:created\",\"entity\":{\"id\":\"ord_1\",\"type\":\"order\",\"data\":{}}}")
            .getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theReadmeEndpointAnswersAsCoreSays() throws Exception {
        Path dir = Files.createTempDirectory("xborder-recipe");
        Files.writeString(dir.resolve("WebhookEndpoint.java"), readmeJava());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-d", dir.toString(), "-cp", System.getProperty("java.class.path"),
            dir.resolve("WebhookEndpoint.java").toString());
        assertEquals(0, rc, "the README's Java recipe does not compile");

        List<String> persisted = new ArrayList<>();
        Claims claims = new Claims(30_000L, null, null);
        try (URLClassLoader loader = new URLClassLoader(new java.net.URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            Class<?> endpoint = loader.loadClass("WebhookEndpoint");
            Class<?> persistType = loader.loadClass("WebhookEndpoint$Persist");
            boolean[] failNext = {false};
            Object persist = Proxy.newProxyInstance(loader, new Class<?>[] {persistType}, (proxy, method, args) -> {
                if (method.getName().equals("accept")) {
                    Envelope event = (Envelope) args[0];
                    if (failNext[0]) { failNext[0] = false; throw new IllegalStateException("database down"); }
                    synchronized (persisted) { persisted.add(event.getId()); }
                    return null;
                }
                return method.invoke(this, args);
            });
            HttpServer server = (HttpServer) endpoint.getMethod("start", InetSocketAddress.class, String.class, Claims.class, persistType)
                .invoke(null, new InetSocketAddress("127.0.0.1", 0), SECRET, claims, persist);
            try {
                URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/webhooks");
                HttpClient http = HttpClient.newHttpClient();
                java.util.function.BiFunction<byte[], String, HttpResponse<Void>> post = (body, signature) -> {
                    HttpRequest.Builder req = HttpRequest.newBuilder(url).POST(HttpRequest.BodyPublishers.ofByteArray(body));
                    if (signature != null) req.header("X-Webhook-Signature", signature);
                    try {
                        return http.send(req.build(), HttpResponse.BodyHandlers.discarding());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                };
                byte[] first = envelope("evt_1");
                String sig = Webhooks.sign(SECRET, first);
                assertEquals(200, post.apply(first, sig).statusCode(), "signed");
                assertEquals(List.of("evt_1"), persisted);
                assertEquals(200, post.apply(first, sig).statusCode(), "duplicate");
                assertEquals(List.of("evt_1"), persisted, "a duplicate is not persisted again");
                byte[] tampered = first.clone();
                tampered[8] = 'X';
                assertEquals(400, post.apply(tampered, sig).statusCode(), "tampered");
                assertEquals(400, post.apply(envelope("evt_2"), null).statusCode(), "unsigned");
                byte[] notJson = "{".getBytes(StandardCharsets.UTF_8);
                assertEquals(400, post.apply(notJson, Webhooks.sign(SECRET, notJson)).statusCode(), "not an envelope");

                // Held by another instance: 503 with core's Retry-After (the lease, in seconds).
                byte[] held = envelope("evt_3");
                assertEquals(ClaimOutcome.CLAIMED, claims.step("claim", "evt_3", "another-instance", System.currentTimeMillis()));
                HttpResponse<Void> busy = post.apply(held, Webhooks.sign(SECRET, held));
                assertEquals(503, busy.statusCode());
                assertEquals("30", busy.headers().firstValue("Retry-After").orElse(null));
                assertEquals(List.of("evt_1"), persisted);

                // Persisting fails: released, 500, and the retry processes it.
                byte[] flaky = envelope("evt_4");
                String flakySig = Webhooks.sign(SECRET, flaky);
                failNext[0] = true;
                assertEquals(500, post.apply(flaky, flakySig).statusCode(), "persist failed: released");
                assertEquals(200, post.apply(flaky, flakySig).statusCode(), "the retry");
                assertEquals(List.of("evt_1", "evt_4"), persisted);
            } finally {
                server.stop(0);
            }
        }
        assertTrue(persisted.size() == 2);
    }
}
