//! The provider's delivery rule for one event: up to a number of attempts in total (5 by
//! default, core's [`MAX_DELIVERY_ATTEMPTS`]), a 2xx ends them, then the event is dead-lettered.
//! (It lived in core as `delivery::DeliveryAttempts`; the simulator is its one user.)

use xborder_core::delivery::MAX_DELIVERY_ATTEMPTS;

/// Where one event stands in the service's delivery schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeliveryState {
    /// Not attempted yet, or waiting for the attempt numbered `next_attempt` (1-based).
    Retry {
        /// The number the next attempt will carry.
        next_attempt: u32,
    },
    /// Acknowledged with a 2xx on attempt `attempts`.
    Delivered {
        /// Attempts made, the acknowledged one included.
        attempts: u32,
    },
    /// Not acknowledged within the limit: moved to the dead-letter queue, never retried
    /// automatically.
    DeadLettered {
        /// Attempts made.
        attempts: u32,
    },
}

/// The provider's delivery rule for one event: up to `max` attempts in total, then dead-letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DeliveryAttempts {
    state: DeliveryState,
    max: u32,
}

impl Default for DeliveryAttempts {
    fn default() -> Self {
        Self::with_max(MAX_DELIVERY_ATTEMPTS)
    }
}

impl DeliveryAttempts {
    /// A fresh event under a limit of `max` attempts (at least 1).
    pub(crate) fn with_max(max: u32) -> Self {
        DeliveryAttempts {
            state: DeliveryState::Retry { next_attempt: 1 },
            max: max.max(1),
        }
    }

    /// Where the event stands.
    #[cfg(test)]
    fn state(&self) -> DeliveryState {
        self.state
    }

    /// Whether no attempt will follow (delivered or dead-lettered).
    #[cfg(test)]
    fn is_final(&self) -> bool {
        !matches!(self.state, DeliveryState::Retry { .. })
    }

    /// Records the outcome of the pending attempt (`acknowledged`: the endpoint answered 2xx).
    /// A final state does not change.
    pub(crate) fn record(&mut self, acknowledged: bool) -> DeliveryState {
        if let DeliveryState::Retry { next_attempt } = self.state {
            self.state = if acknowledged {
                DeliveryState::Delivered {
                    attempts: next_attempt,
                }
            } else if next_attempt >= self.max {
                DeliveryState::DeadLettered {
                    attempts: next_attempt,
                }
            } else {
                DeliveryState::Retry {
                    next_attempt: next_attempt + 1,
                }
            };
        }
        self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What core's doctests of `DeliveryAttempts` checked, kept with the type.
    #[test]
    fn five_attempts_then_dead_letter_and_a_final_state_stays() {
        let mut a = DeliveryAttempts::default();
        assert_eq!(a.state(), DeliveryState::Retry { next_attempt: 1 });
        assert!(!a.is_final());
        for _ in 0..4 {
            assert!(matches!(a.record(false), DeliveryState::Retry { .. }));
        }
        assert_eq!(a.record(false), DeliveryState::DeadLettered { attempts: 5 });
        assert!(a.is_final());

        let mut a = DeliveryAttempts::default();
        assert_eq!(a.record(false), DeliveryState::Retry { next_attempt: 2 });
        assert_eq!(a.record(true), DeliveryState::Delivered { attempts: 2 });
        assert_eq!(a.record(false), DeliveryState::Delivered { attempts: 2 }); // final
        assert!(a.is_final());

        let mut a = DeliveryAttempts::default();
        assert_eq!(a.record(true), DeliveryState::Delivered { attempts: 1 });

        let mut a = DeliveryAttempts::with_max(1);
        assert_eq!(a.record(false), DeliveryState::DeadLettered { attempts: 1 });
        let mut a = DeliveryAttempts::with_max(0); // at least 1
        assert_eq!(a.record(false), DeliveryState::DeadLettered { attempts: 1 });
    }
}
