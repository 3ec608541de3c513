// A consumer of the built jar: compiled with javac against it and run with
// `java -cp app:xborder-jvm.jar:<jna>:<kotlin-stdlib>`, no -Djna.library.path (jvm/test.sh).
import dev.xborder.Action;
import dev.xborder.Decision;
import dev.xborder.Receiver;
import dev.xborder.Webhooks;
import java.nio.charset.StandardCharsets;

public class App {
    public static void main(String[] args) {
        byte[] body = "{\"id\":\"evt_1\",\"event\":\"order:created\",\"entity\":{\"id\":\"ord_1\",\"type\":\"order\",\"data\":{}}}"
            .getBytes(StandardCharsets.UTF_8);
        String header = Webhooks.sign("whsec_test", body);
        Decision d = new Receiver("whsec_test").receive(body, header);
        if (d.getAction() != Action.PROCESS || System.getProperty("jna.library.path") != null) {
            System.out.println("consumer: FAILED " + d);
            System.exit(1);
        }
        System.out.println("consumer: " + d.getAction() + " " + d.getEnvelope().getId() + " (library from the jar)");
    }
}
