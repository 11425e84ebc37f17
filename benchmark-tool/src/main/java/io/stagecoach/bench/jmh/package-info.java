/** JMH microbenchmarks of core's hot paths; run with {@code org.openjdk.jmh.Main}. */
package io.stagecoach.bench.jmh;
