package io.stagecoach.bench.jmh;

import io.stagecoach.core.coap.Code;
import io.stagecoach.core.coap.Message;
import io.stagecoach.core.coap.OptionSet;
import io.stagecoach.core.coap.Request;
import io.stagecoach.core.coap.Response;
import io.stagecoach.core.coap.Token;
import io.stagecoach.core.coap.Type;
import io.stagecoach.core.codec.MessageFormatException;
import io.stagecoach.core.codec.UdpMessageParser;
import io.stagecoach.core.codec.UdpMessageSerializer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Parse and serialize cost of the two messages of a typical exchange: a CON GET with a 4-byte
 * token and Uri-Path "benchmark", and its piggybacked 2.05 ACK carrying "hello world" with
 * Content-Format 0. Results: docs/benchmarks/codec.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBenchmark {

    private final UdpMessageParser parser = new UdpMessageParser();
    private final UdpMessageSerializer serializer = new UdpMessageSerializer();

    private Message request;
    private Message response;
    private byte[] requestBytes;
    private byte[] responseBytes;
    private byte[] buffer;

    @Setup
    public void setUp() {
        request = Request.get().type(Type.CON).mid(0x1234).token(Token.fromHex("01020304"))
                .options(OptionSet.builder().addUriPath("benchmark").build()).build();
        response = Response.builder(Code.CONTENT).type(Type.ACK).mid(0x1234).token(Token.fromHex("01020304"))
                .options(OptionSet.builder().contentFormat(0).build()).payload("hello world").build();
        requestBytes = serializer.serialize(request);
        responseBytes = serializer.serialize(response);
        buffer = new byte[1500];
    }

    @Benchmark
    public Message parseRequest() throws MessageFormatException {
        return parser.parse(requestBytes);
    }

    /** As the endpoint parses a received datagram: option values read in place (parseShared). */
    @Benchmark
    public Message parseRequestShared() throws MessageFormatException {
        return parser.parseShared(requestBytes, null, 0);
    }

    @Benchmark
    public Message parseResponse() throws MessageFormatException {
        return parser.parse(responseBytes);
    }

    @Benchmark
    public byte[] serializeRequest() {
        return serializer.serialize(request);
    }

    @Benchmark
    public byte[] serializeResponse() {
        return serializer.serialize(response);
    }

    /** Into a reused buffer, as a connector with a send buffer would do. */
    @Benchmark
    public int serializeResponseIntoBuffer() {
        return serializer.serialize(response, buffer, 0);
    }
}
