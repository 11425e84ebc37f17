package io.stagecoach.bench.ccsim;

import io.stagecoach.elements.Connector;
import io.stagecoach.elements.ForwardingConnector;
import io.stagecoach.elements.RawData;
import io.stagecoach.elements.RawDataReceiver;

/** Counts what reaches the server and what it sends (for the accounting checks of the tests). */
final class ServerTap extends ForwardingConnector {

    private final int overheadBytes;
    private long wireBytesSent;
    private long requestCopiesReceived;

    ServerTap(Connector delegate, int overheadBytes) {
        super(delegate);
        this.overheadBytes = overheadBytes;
    }

    @Override
    public void send(RawData data) {
        wireBytesSent += data.size() + overheadBytes;
        super.send(data);
    }

    @Override
    public void setRawDataReceiver(RawDataReceiver receiver) {
        super.setRawDataReceiver(raw -> {
            if (Datagrams.isConRequest(raw.buffer())) {
                requestCopiesReceived++;
            }
            receiver.receiveData(raw);
        });
    }

    long wireBytesSent() {
        return wireBytesSent;
    }

    long requestCopiesReceived() {
        return requestCopiesReceived;
    }
}
