package dev.xborder.bench;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.xborder.Action;
import dev.xborder.DecodeLimits;
import dev.xborder.Receiver;
import dev.xborder.Webhooks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * xborder's JVM package (its public API, package dev.xborder) against a hand-written receiver, per envelope size (the fixtures'
 * 1.7 KB and 20 KB envelopes). Method names are {@code operation_variant}: tests/bench/report.py
 * groups them into rows (xborder over each other variant).
 *
 * <ul>
 *   <li>{@code javax}: {@code Mac.getInstance} + {@code init} + {@code doFinal} + a constant-time
 *       compare per call (a {@code Mac} is not thread-safe, so a handler makes one per call);
 *   <li>{@code floor}: one keyed {@code Mac} reused, the HMAC alone;
 *   <li>{@code naive}: {@code javax} plus a Gson parse and a {@code HashSet} lookup of the id.
 * </ul>
 *
 * <p>Mode, time unit, warm-up, iterations and forks are set once, on the command line, by
 * tests/bench/run.sh (average time in ns per call).
 */
@State(Scope.Thread)
public class XborderBench {
    @Param({"1k7", "20k"})
    public String size;

    /** The fixtures folder (tests/bench/fixtures); run.sh passes it with {@code -p fixtures=}. */
    @Param({"tests/bench/fixtures"})
    public String fixtures;

    private String secret;
    private byte[] key;
    private byte[] body;
    private String sig;
    private Receiver rx;
    private final DecodeLimits limits = DecodeLimits.defaults();
    private Mac keyed;
    private final Set<String> seen = new HashSet<>();

    @Setup
    public void setup() throws IOException, GeneralSecurityException {
        Path dir = Path.of(fixtures);
        secret = Files.readString(dir.resolve("secret.txt"));
        key = secret.getBytes(StandardCharsets.UTF_8);
        body = Files.readAllBytes(dir.resolve("envelope-" + size + ".json"));
        sig = Files.readString(dir.resolve("envelope-" + size + ".sig"));
        rx = new Receiver(secret, 20_000L, null, null);
        for (int i = 0; i < 10_000; i++) {
            String id = "evt_" + String.format("%026d", i);
            rx.commit(id);
            seen.add(id);
        }
        keyed = Mac.getInstance("HmacSHA256");
        keyed.init(new SecretKeySpec(key, "HmacSHA256"));
        // Every variant must agree on the fixture before it is timed.
        Webhooks.verify(secret, body, sig);
        if (!javax() || rx.receive(body, sig).getAction() != Action.PROCESS || naive()) {
            throw new IllegalStateException("the fixture does not verify in every variant");
        }
    }

    private boolean javax() {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] want = HexFormat.of().parseHex(sig.strip().toLowerCase());
            return MessageDigest.isEqual(mac.doFinal(body), want);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }

    private boolean naive() {
        if (!javax()) {
            throw new IllegalStateException("signature");
        }
        JsonObject o = JsonParser.parseString(new String(body, StandardCharsets.UTF_8)).getAsJsonObject();
        return seen.contains(o.get("id").getAsString());
    }

    @Benchmark
    public void verify_xborder() {
        Webhooks.verify(secret, body, sig);
    }

    @Benchmark
    public boolean verify_javax() {
        return javax();
    }

    @Benchmark
    public byte[] verify_floor() {
        return keyed.doFinal(body);
    }

    @Benchmark
    public Object decode_xborder() {
        return Webhooks.decodeEnvelope(body, limits);
    }

    @Benchmark
    public Object decode_gson() {
        return JsonParser.parseString(new String(body, StandardCharsets.UTF_8));
    }

    @Benchmark
    public Object receive_xborder() {
        return rx.receive(body, sig);
    }

    @Benchmark
    public boolean receive_naive() {
        return naive();
    }
}
