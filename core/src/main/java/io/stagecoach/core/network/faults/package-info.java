/**
 * Fault injection for chaos tests (issue 11 "Faults"): {@link io.stagecoach.core.network.faults.FaultInjector}
 * decides, at a seeded rate per {@link io.stagecoach.core.network.faults.FaultKind}, and small
 * decorators act (a layer, an executor, a connector; the server's deliverer for handlers). Nothing
 * here is active unless a test or benchmark installs it. See docs/reliability.md, "Faults".
 */
package io.stagecoach.core.network.faults;
