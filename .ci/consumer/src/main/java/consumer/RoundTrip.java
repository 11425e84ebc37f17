package consumer;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.coap.ContentFormat;
import io.stagecoach.core.server.CoapResource;
import io.stagecoach.core.server.CoapServer;

/** A server and a client in one process, through the novice API only. */
public final class RoundTrip {

    private RoundTrip() {
    }

    /** Starts a server on a free port, asks it once with a client of its own, stops both; returns the answer. */
    public static String run() {
        CoapServer server = new CoapServer(0)
                .add(CoapResource.named("greeting").onPost(ex -> ex.respond("hello " + ex.payloadText())))
                .start();
        try (CoapClient client = CoapClient.builder("coap://127.0.0.1:" + server.port() + "/greeting").build()) {
            CoapResponse r = client.post("consumer", ContentFormat.TEXT_PLAIN);
            return r.code() + " " + r.payloadText();
        } finally {
            server.destroy();
        }
    }

    public static void main(String[] args) {
        System.out.println(run());
    }
}
