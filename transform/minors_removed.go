package transform

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
)

// removedKind is a kind that older releases served and printed but the
// pinned release no longer has, or has only with other fields (DRA's
// ResourceClaims before 1.31 named a ResourceClass, which the pin's types
// cannot hold): the legacy scheme cannot decode it as those releases did,
// so its tables are rendered from the unstructured objects, by the cells
// its releases' printers computed (written from their printers.go), under
// the columns they declared (described per minor by minors_descriptions).
type removedKind struct {
	// since and upTo are the minors whose printers rendered the kind.
	since, upTo int
	columns     []metav1.TableColumnDefinition
	// cells computes a row from the object decoded into a value of the
	// fields the printer read; age is translateTimestampSince of its
	// creation as of the collection.
	cells func(u *unstructured.Unstructured, age string) ([]any, error)
}

// removedKinds are the removed kinds, by group and kind.
var removedKinds = map[schema.GroupKind]removedKind{
	// policy/v1beta1, served up to 1.24; printed up to 1.26.
	{Group: "policy", Kind: "PodSecurityPolicy"}: {since: 20, upTo: 26,
		columns: []metav1.TableColumnDefinition{nameColumn, plainColumn("Priv"), plainColumn("Caps"), plainColumn("SELinux"),
			plainColumn("RunAsUser"), plainColumn("FsGroup"), plainColumn("SupGroup"), plainColumn("ReadOnlyRootFs"), plainColumn("Volumes")},
		cells: cellsOf(func(o *struct {
			Spec struct {
				Privileged             bool     `json:"privileged"`
				AllowedCapabilities    []string `json:"allowedCapabilities"`
				SELinux                ruleOnly `json:"seLinux"`
				RunAsUser              ruleOnly `json:"runAsUser"`
				FSGroup                ruleOnly `json:"fsGroup"`
				SupplementalGroups     ruleOnly `json:"supplementalGroups"`
				ReadOnlyRootFilesystem bool     `json:"readOnlyRootFilesystem"`
				Volumes                []string `json:"volumes"`
			} `json:"spec"`
		}, name, _ string) []any {
			s := o.Spec
			return []any{name, fmt.Sprintf("%v", s.Privileged), strings.Join(s.AllowedCapabilities, ","), s.SELinux.Rule,
				s.RunAsUser.Rule, s.FSGroup.Rule, s.SupplementalGroups.Rule, s.ReadOnlyRootFilesystem, strings.Join(s.Volumes, ",")}
		}),
	},
	// networking.k8s.io/v1alpha1, 1.25 to 1.28.
	{Group: "networking.k8s.io", Kind: "ClusterCIDR"}: {since: 25, upTo: 28,
		columns: []metav1.TableColumnDefinition{nameColumn, plainColumn("PerNodeHostBits"), plainColumn("IPv4"), plainColumn("IPv6"),
			plainColumn("Age"), {Name: "NodeSelector", Type: "string", Priority: 1}},
		cells: cellsOf(func(o *struct {
			Spec struct {
				PerNodeHostBits int32                `json:"perNodeHostBits"`
				IPv4            string               `json:"ipv4"`
				IPv6            string               `json:"ipv6"`
				NodeSelector    *corev1.NodeSelector `json:"nodeSelector"`
			} `json:"spec"`
		}, name, age string) []any {
			s := o.Spec
			ipv4, ipv6 := "<none>", "<none>"
			if s.IPv4 != "" {
				ipv4 = s.IPv4
			}
			if s.IPv6 != "" {
				ipv6 = s.IPv6
			}
			// The server prints wide: the node selector is a cell.
			nodeSelector := "<none>"
			if s.NodeSelector != nil {
				terms := []string{}
				for _, term := range s.NodeSelector.NodeSelectorTerms {
					// %v of the internal requirements, whose fields are
					// core/v1's, in the same order.
					if len(term.MatchExpressions) > 0 {
						terms = append(terms, fmt.Sprintf("MatchExpressions: %v", term.MatchExpressions))
					}
					if len(term.MatchFields) > 0 {
						terms = append(terms, fmt.Sprintf("MatchFields: %v", term.MatchFields))
					}
				}
				nodeSelector = strings.Join(terms, ",")
			}
			return []any{name, fmt.Sprint(s.PerNodeHostBits), ipv4, ipv6, age, nodeSelector}
		}),
	},
	// resource.k8s.io/v1alpha1 of 1.26; renamed PodSchedulingContext in 1.27.
	{Group: "resource.k8s.io", Kind: "PodScheduling"}: {since: 26, upTo: 26,
		columns: selectedNodeColumns, cells: selectedNodeCells},
	// resource.k8s.io/v1alpha2 and v1alpha3, printed 1.27 to 1.31.
	{Group: "resource.k8s.io", Kind: "PodSchedulingContext"}: {since: 27, upTo: 31,
		columns: selectedNodeColumns, cells: selectedNodeCells},
	// resource.k8s.io/v1alpha1 and v1alpha2, 1.26 to 1.30.
	{Group: "resource.k8s.io", Kind: "ResourceClass"}: {since: 26, upTo: 30,
		columns: []metav1.TableColumnDefinition{nameColumn, plainColumn("DriverName"), plainColumn("Age")},
		cells: cellsOf(func(o *struct {
			DriverName string `json:"driverName"`
		}, name, age string) []any {
			return []any{name, o.DriverName, age}
		}),
	},
	// resource.k8s.io/v1alpha1 and v1alpha2 (1.26 to 1.30): claims named
	// their ResourceClass and allocation mode, which the server defaulted
	// to WaitForFirstConsumer (v1alpha2/defaults.go).
	{Group: "resource.k8s.io", Kind: "ResourceClaim"}: {since: 26, upTo: 30,
		columns: []metav1.TableColumnDefinition{nameColumn, plainColumn("ResourceClassName"), plainColumn("AllocationMode"),
			plainColumn("State"), plainColumn("Age")},
		cells: cellsOf(func(o *struct {
			Metadata struct {
				DeletionTimestamp *metav1.Time `json:"deletionTimestamp"`
			} `json:"metadata"`
			Spec   classAndMode `json:"spec"`
			Status struct {
				Allocation            *struct{} `json:"allocation"`
				ReservedFor           []any     `json:"reservedFor"`
				DeallocationRequested bool      `json:"deallocationRequested"`
			} `json:"status"`
		}, name, age string) []any {
			st := o.Status
			state := claimStateBefore132(o.Metadata.DeletionTimestamp != nil, st.Allocation != nil, len(st.ReservedFor) > 0, st.DeallocationRequested)
			return []any{name, o.Spec.ResourceClassName, o.Spec.mode(), state, age}
		}),
	},
	{Group: "resource.k8s.io", Kind: "ResourceClaimTemplate"}: {since: 26, upTo: 30,
		columns: []metav1.TableColumnDefinition{nameColumn, plainColumn("ResourceClassName"), plainColumn("AllocationMode"), plainColumn("Age")},
		cells: cellsOf(func(o *struct {
			Spec struct {
				Spec classAndMode `json:"spec"`
			} `json:"spec"`
		}, name, age string) []any {
			return []any{name, o.Spec.Spec.ResourceClassName, o.Spec.Spec.mode(), age}
		}),
	},
	// resource.k8s.io/v1alpha2 of 1.30: node and driver at the top level.
	{Group: "resource.k8s.io", Kind: "ResourceSlice"}: {since: 30, upTo: 30,
		columns: []metav1.TableColumnDefinition{nameColumn, plainColumn("Node"), plainColumn("Driver"), plainColumn("Age")},
		cells: cellsOf(func(o *struct {
			NodeName   string `json:"nodeName"`
			DriverName string `json:"driverName"`
		}, name, age string) []any {
			return []any{name, o.NodeName, o.DriverName, age}
		}),
	},
	// resource.k8s.io/v1alpha2 of 1.30.
	{Group: "resource.k8s.io", Kind: "ResourceClaimParameters"}: {since: 30, upTo: 30,
		columns: generatedFromColumns, cells: generatedFromCells},
	{Group: "resource.k8s.io", Kind: "ResourceClassParameters"}: {since: 30, upTo: 30,
		columns: generatedFromColumns, cells: generatedFromCells},
}

var (
	nameColumn          = metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name"}
	selectedNodeColumns = []metav1.TableColumnDefinition{nameColumn, plainColumn("SelectedNode"), plainColumn("Age")}
	selectedNodeCells   = cellsOf(func(o *struct {
		Spec struct {
			SelectedNode string `json:"selectedNode"`
		} `json:"spec"`
	}, name, age string) []any {
		return []any{name, o.Spec.SelectedNode, age}
	})
	generatedFromColumns = []metav1.TableColumnDefinition{nameColumn, plainColumn("GeneratedFrom"), plainColumn("Age")}
	generatedFromCells   = cellsOf(func(o *struct {
		GeneratedFrom *struct {
			APIGroup string `json:"apiGroup"`
			Kind     string `json:"kind"`
			Name     string `json:"name"`
		} `json:"generatedFrom"`
	}, name, age string) []any {
		generatedFrom := ""
		if g := o.GeneratedFrom; g != nil {
			generatedFrom = fmt.Sprintf("%s.%s %s", g.Kind, g.APIGroup, g.Name)
		}
		return []any{name, generatedFrom, age}
	})
)

// claimStateBefore132 is resourceClaimState of 1.26 to 1.31, which
// printed "deallocating" for an allocated claim that nothing reserved
// once it was deleted or its driver was asked to deallocate.
func claimStateBefore132(deleted, allocated, reserved, deallocationRequested bool) string {
	var states []string
	if deleted {
		states = append(states, "deleted")
	}
	switch {
	case !allocated && !deleted:
		states = append(states, "pending")
	case allocated:
		states = append(states, "allocated")
		if reserved {
			states = append(states, "reserved")
		} else if deleted || deallocationRequested {
			states = append(states, "deallocating")
		}
	}
	return strings.Join(states, ",")
}

// classAndMode is the ResourceClaimSpec of 1.26 to 1.30 as its printers read it.
type classAndMode struct {
	ResourceClassName string `json:"resourceClassName"`
	AllocationMode    string `json:"allocationMode"`
}

// mode is the allocation mode as the server, which defaulted it, stored it.
func (c classAndMode) mode() string {
	if c.AllocationMode == "" {
		return "WaitForFirstConsumer"
	}
	return c.AllocationMode
}

// ruleOnly is a PodSecurityPolicy strategy, of which the printer shows the rule.
type ruleOnly struct {
	Rule string `json:"rule"`
}

func plainColumn(name string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: "string"}
}

// cellsOf reads an object into the fields a printer read, then computes
// its cells.
func cellsOf[T any](cells func(o *T, name, age string) []any) func(*unstructured.Unstructured, string) ([]any, error) {
	return func(u *unstructured.Unstructured, age string) ([]any, error) {
		o := new(T)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, o); err != nil {
			return nil, err
		}
		return cells(o, u.GetName(), age), nil
	}
}

// removedKindFor is the removed kind gk's printer of minor, if minor printed it.
func removedKindFor(gk schema.GroupKind, minor int) (removedKind, bool) {
	k, ok := removedKinds[gk]
	if !ok || minor < k.since || minor > k.upTo {
		return removedKind{}, false
	}
	return k, true
}

// removedTable renders a list of a removed kind as the server of the
// renderer's minor did: rows in storage order, ages as of the collection.
func (r *Renderer) removedTable(l List, k removedKind) (*metav1.Table, error) {
	list, err := unstructuredList(l)
	if err != nil {
		return nil, err
	}
	ages := make([]string, len(list.Items))
	err = r.asOfCollection(func(c clock) error {
		for i := range list.Items {
			created := list.Items[i].GetCreationTimestamp()
			// translateTimestampSince, on the moved time.
			if created.IsZero() {
				ages[i] = "<unknown>"
				continue
			}
			ages[i] = duration.HumanDuration(time.Since(c.shift(created.Time)))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	table := &metav1.Table{ColumnDefinitions: k.columns, Rows: make([]metav1.TableRow, 0, len(list.Items))}
	table.ResourceVersion = l.ResourceVersion
	for i := range list.Items {
		cells, err := k.cells(&list.Items[i], ages[i])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", storageKey(&list.Items[i]), err)
		}
		table.Rows = append(table.Rows, metav1.TableRow{Cells: cells, Object: runtime.RawExtension{Object: &list.Items[i]}})
	}
	describeForMinor(r.minor, l.Kind, table)
	return table, partialRows(table)
}
