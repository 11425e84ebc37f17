package io.stagecoach.elements.config;

/**
 * How one kind of value (integer, duration, size, ...) is parsed from and written to text.
 *
 * <p>{@link #parse(String)} throws {@link IllegalArgumentException} whose message says what was
 * expected; {@link Definition} turns it into a {@link ConfigurationException} naming the key.
 */
interface ValueKind<T> {

    /** Short type name for documentation, for example {@code duration}. */
    String typeName();

    /** The parsed value of trimmed, non-empty {@code text}. */
    T parse(String text);

    /** Text that {@link #parse(String)} turns back into {@code value}. */
    String format(T value);

    /** What {@link #parse(String)} accepts, for error messages, for example "an integer". */
    String expected();
}
