package io.stagecoach.core.server;

/**
 * Runs around every resource handler of a server, on the handler's thread: to authorize a
 * request by its peer's identity, log it, time it, or answer it without the handler. Installed
 * with {@link CoapServerBuilder#handlerInterceptor}; several run in the order given, each wrapping
 * the next, the handler innermost (the chain of OkHttp's interceptors).
 *
 * <pre>{@code
 * CoapServer.builder().handlerInterceptor(chain -> {
 *     if (!allowed(chain.exchange())) {
 *         chain.exchange().respond(Code.FORBIDDEN);   // 4.03, the handler does not run
 *         return;
 *     }
 *     chain.proceed();
 * });
 * }</pre>
 *
 * <p>An interceptor that throws is treated as a throwing handler: the request is answered 5.00
 * (unless it was answered already) and the failure counted in
 * {@link ServerCounters#handlerErrors()}. A server without interceptors calls the handler
 * directly: nothing of this interface is on its request path.
 */
@FunctionalInterface
public interface HandlerInterceptor {

    /** Handles one request (or notification run); call {@link Chain#proceed()} to go on. */
    void intercept(Chain chain) throws Exception;

    /** One request's way through the interceptors to the handler. */
    interface Chain {
        /** The request and the ways to answer it. */
        CoapExchange exchange();

        /** The resource whose handler runs at the end of the chain. */
        Resource resource();

        /** Runs the next interceptor, or the resource's handler after the last one. */
        void proceed() throws Exception;
    }
}
