package dev.xborder.bench;

import dev.xborder.Events;
import java.util.HashSet;
import java.util.Set;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * One foreign call with almost no work ({@code Events.classify}): what crossing JNA and uniffi's
 * buffers costs, beside the {@code HashSet} lookup an integrator would write.
 */
@State(Scope.Thread)
public class ClassifyBench {
    private final Set<String> live = new HashSet<>(Set.of("order:funds_received", "order:created", "order:success"));

    @Benchmark
    public Object classify_xborder() {
        return Events.classify("order:funds_received");
    }

    @Benchmark
    public boolean classify_naive() {
        return live.contains("order:funds_received");
    }
}
