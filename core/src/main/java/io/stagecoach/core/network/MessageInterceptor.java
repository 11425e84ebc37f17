package io.stagecoach.core.network;

import io.stagecoach.core.coap.EmptyMessage;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;

/**
 * Sees every message an endpoint sends or receives, after decoding and before encoding, without
 * changing it: tracing, metrics, auditing. Runs on protocol threads; keep it quick. Every method
 * does nothing by default.
 */
public interface MessageInterceptor {

    default void sendRequest(Request request) {
    }

    default void sendResponse(Response response) {
    }

    default void sendEmpty(EmptyMessage message) {
    }

    default void receiveRequest(Request request) {
    }

    default void receiveResponse(Response response) {
    }

    default void receiveEmpty(EmptyMessage message) {
    }
}
