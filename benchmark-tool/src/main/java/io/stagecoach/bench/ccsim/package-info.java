/**
 * {@code ./stagecoach cc-sim}: the experiment of Järvinen et al., "Is CoAP Congestion Safe?"
 * (ANRW '18), run with the real Stagecoach client and server stacks over a simulated network on a
 * virtual clock (results in {@code docs/congestion-control.md}).
 *
 * <ul>
 *   <li>{@link io.stagecoach.bench.ccsim.CcSimMain}: command line, grid loop, reports.
 *   <li>{@link io.stagecoach.bench.ccsim.Scenario}, {@link io.stagecoach.bench.ccsim.Topology},
 *       {@link io.stagecoach.bench.ccsim.Strategy}, {@link io.stagecoach.bench.ccsim.Workload}:
 *       what is simulated (paper §3).
 *   <li>{@link io.stagecoach.bench.ccsim.Replication}: one seeded run (endpoints, network, clock);
 *       {@code SimClient} is one client's workload; {@code ClientTap}/{@code ServerTap} are
 *       connector decorators that count copies and bytes; {@code DropFlagLink} tells a sender
 *       whether the uplink queue accepted its packet.
 *   <li>{@link io.stagecoach.bench.ccsim.RunSummary}: percentiles over clients × replications;
 *       {@code JsonReport}, {@code TextReport}, {@code HtmlReport}, {@code Figure4Svg} render it.
 * </ul>
 */
package io.stagecoach.bench.ccsim;
