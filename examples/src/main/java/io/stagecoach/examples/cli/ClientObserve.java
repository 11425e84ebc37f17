package io.stagecoach.examples.cli;

import io.stagecoach.core.client.CoapClient;
import io.stagecoach.core.client.CoapException;
import io.stagecoach.core.client.CoapHandler;
import io.stagecoach.core.client.CoapObserveRelation;
import io.stagecoach.core.client.CoapRejectedException;
import io.stagecoach.core.client.CoapResponse;
import io.stagecoach.core.client.CoapTimeoutException;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.endpoint.CoapEndpoint;
import io.stagecoach.elements.time.Cancellable;
import io.stagecoach.elements.time.Scheduler;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code -s/--observe SECONDS}: registers as an observer (GET with Observe=0, RFC 7641 §3.1),
 * prints the registration answer and every notification as they come, and after SECONDS
 * deregisters (GET with Observe=1, §3.6). Ends early when the observation ends: an error answer or
 * final notification (exit 1), a registration the server did not accept as an observation (no
 * Observe option: exit by its code), or a failure (exit 2).
 */
final class ClientObserve {

    private ClientObserve() {
    }

    /** @param window the clock of the SECONDS window; {@code null}: the endpoint's scheduler */
    static int run(ClientOptions o, InputStream in, PrintStream out, PrintStream err, Scheduler window) {
        CoapEndpoint endpoint = null;
        Cancellable windowEnd = null;
        try {
            byte[] payload = ClientCommand.payload(o, in);
            endpoint = ClientCommand.endpoint(o, err);
            endpoint.start();
            CoapClient client = new CoapClient(o.uri, endpoint).timeout(o.timeout);
            Request.Builder b = ClientCommand.request(client, o, payload).newBuilder();
            b.options().observe(0);
            ResponsePrinter printer = new ResponsePrinter(out, o.verbose, o.output);
            Watch watch = new Watch(printer, o.verbose ? null : err);
            // The window starts before the registration is sent, so it is running once anything is printed.
            windowEnd = (window != null ? window : endpoint.scheduler()).schedule(watch.ended::countDown, o.observe);
            CoapObserveRelation relation = client.observe(b.build(), watch);
            watch.ended.await();
            if (watch.failure.get() != null) {
                return fail(watch.failure.get(), err);
            }
            if (watch.status.get() >= 0) {
                return watch.status.get();
            }
            try {
                relation.proactiveCancel().get(2, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // The deregistration's answer does not change what was observed.
            }
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("stagecoach client: interrupted");
            return 2;
        } catch (CoapException | IOException | IllegalArgumentException | IllegalStateException e) {
            return fail(e, err);
        } finally {
            if (windowEnd != null) {
                windowEnd.cancel();
            }
            if (endpoint != null) {
                endpoint.destroy();
            }
        }
    }

    private static int fail(Throwable e, PrintStream err) {
        if (e instanceof CoapTimeoutException) {
            err.println("stagecoach client: timeout: " + ClientCommand.oneLine(e));
        } else if (e instanceof CoapRejectedException) {
            err.println("stagecoach client: the server rejected the request (RST)");
        } else {
            err.println("stagecoach client: " + (e.getMessage() == null ? e.toString() : ClientCommand.oneLine(e)));
        }
        return 2;
    }

    /** Prints what arrives; notes when and why the observation ended. */
    private static final class Watch implements CoapHandler {
        final CountDownLatch ended = new CountDownLatch(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicInteger status = new AtomicInteger(-1);
        private final ResponsePrinter printer;
        private final PrintStream errorCodes;

        /** @param errorCodes where the code of an error answer goes (null: -v printed it already) */
        Watch(ResponsePrinter printer, PrintStream errorCodes) {
            this.printer = printer;
            this.errorCodes = errorCodes;
        }

        @Override
        public void onLoad(CoapResponse response) {
            try {
                printer.print(response.advanced());
            } catch (IOException e) {
                onError(e);
                return;
            }
            if (!response.isSuccess()) {
                if (errorCodes != null) {
                    errorCodes.println(response.code());
                }
                status.compareAndSet(-1, 1);
                ended.countDown();
            } else if (response.options().observe() < 0) {
                status.compareAndSet(-1, 0); // answered, but not as an observation: nothing more will come
                ended.countDown();
            }
        }

        @Override
        public void onError(Throwable error) {
            failure.compareAndSet(null, error);
            ended.countDown();
        }
    }
}
